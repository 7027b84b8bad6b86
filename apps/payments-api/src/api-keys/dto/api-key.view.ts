import { ApiProperty } from '@nestjs/swagger';
import {
  type ApiKeyKind,
  PERMISSION_RESOURCES,
  type PaymentsMode,
  type PermissionLevel,
  type PermissionResource,
  type Permissions,
} from '../../accounts/payments-key.principal';
import type { PaymentKeyRecord } from '../../accounts/payment-accounts.repository';
import { LEVELS, MODES } from './api-key.dto';

export class ApiKeyPermissionsView {
  @ApiProperty({ enum: LEVELS }) customers!: PermissionLevel;
  @ApiProperty({ enum: LEVELS }) payments!: PermissionLevel;
  @ApiProperty({ enum: LEVELS }) refunds!: PermissionLevel;
  @ApiProperty({ enum: LEVELS, description: '/v2/webhook-endpoints' }) webhooks!: PermissionLevel;
  @ApiProperty({ enum: LEVELS }) events!: PermissionLevel;
}

/** A key as its account sees it: never the secret, nor its hash. Timestamps are ISO 8601 UTC. */
export class ApiKeyView {
  @ApiProperty({ example: 'key_Nv0rWm6Qx2...' }) id!: string;
  @ApiProperty({ enum: ['api_key'] }) object!: 'api_key';
  @ApiProperty({ enum: MODES }) mode!: PaymentsMode;
  @ApiProperty({ enum: ['secret', 'restricted'] }) kind!: ApiKeyKind;
  @ApiProperty({ type: String, nullable: true, description: 'Restricted keys: the name given; secret keys: null' })
  name!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'x9Qa',
    description: "The secret's last 4 characters, to tell keys apart (null for keys created before they were kept)",
  })
  last4!: string | null;
  @ApiProperty({ format: 'date-time', example: '2026-11-21T05:00:00.000Z' }) created!: string;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When a roll replaced the key: it answers 401 from then on (null: no expiry)',
  })
  expires_at!: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the key last authenticated a request (updated at most once a minute)',
  })
  last_used_at!: string | null;
  @ApiProperty({ type: ApiKeyPermissionsView, nullable: true, description: 'Restricted keys only (null for secret keys)' })
  permissions!: ApiKeyPermissionsView | null;
}

export class ApiKeyCreatedView extends ApiKeyView {
  @ApiProperty({
    example: 'sk_test_...',
    description: 'The key (sk_test_…, sk_live_…, rk_test_… or rk_live_…). Shown once; stored only as SHA-256.',
  })
  secret!: string;
}

export class DeletedApiKeyView {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: ['api_key'] }) object!: 'api_key';
  @ApiProperty({ enum: [true] }) deleted!: true;
}

export class ApiKeyListView {
  @ApiProperty({ enum: ['list'] }) object!: 'list';
  @ApiProperty({ type: [ApiKeyView] }) data!: ApiKeyView[];
  @ApiProperty() has_more!: boolean;
  @ApiProperty({ example: '/v2/api-keys' }) url!: string;
}

export function apiKeyView(row: PaymentKeyRecord): ApiKeyView {
  return {
    id: row.id,
    object: 'api_key',
    mode: row.mode,
    kind: row.kind,
    name: row.name,
    last4: row.last4,
    created: row.createdAt.toISOString(),
    expires_at: row.expiresAt?.toISOString() ?? null,
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    permissions: row.kind === 'restricted' ? permissionsView(row.permissions as Partial<Permissions>) : null,
  };
}

/** In the documented order (jsonb keeps keys in its own order); a resource absent is "none". */
function permissionsView(stored: Partial<Permissions>): ApiKeyPermissionsView {
  const view = {} as Record<PermissionResource, PermissionLevel>;
  for (const resource of PERMISSION_RESOURCES) view[resource] = stored[resource] ?? 'none';
  return view;
}
