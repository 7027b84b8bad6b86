/**
 * What each service's OpenAPI document promises, checked against what the service does:
 * `servers` (the configured public URL, else the request's origin, never a hostile Host),
 * request schemas that say what the validators enforce, and every operation's error
 * responses in the error catalogue's terms. test/platform/openapi.e2e-spec.ts keeps the
 * reviewed copy of the whole document.
 */
import { DECORATORS } from '@nestjs/swagger';
import { plainToInstance } from 'class-transformer';
import {
  ARRAY_MAX_SIZE,
  ARRAY_MIN_SIZE,
  IS_ARRAY,
  IS_BOOLEAN,
  IS_EMAIL,
  IS_IN,
  IS_INT,
  IS_LENGTH,
  IS_NUMBER,
  IS_OBJECT,
  IS_OPTIONAL,
  IS_POSITIVE,
  IS_STRING,
  MATCHES,
  MAX,
  MAX_LENGTH,
  MIN,
  MIN_LENGTH,
  validateSync,
} from 'class-validator';
import { offersService } from '../../apps/offers-api/src/service';
import { paymentsService } from '../../apps/payments-api/src/service';
import { QDRANT_BODY_FIELDS } from '../../apps/vector-api/src/compat/qdrant/qdrant.service';
import { vectorService } from '../../apps/vector-api/src/service';
import { documentedRoutes } from '../../libs/platform/src/docs/routes';
import { type ValidationMetadata, validationMetadataOf } from '../../libs/platform/src/http/validation-metadata';
import { startTestApp, type TestApp } from '../support/app';
import { errorSpec, type PlatformConfig, type ServiceDefinition } from '@app/platform';

const services: Array<ServiceDefinition<PlatformConfig>> = [offersService, vectorService, paymentsService].map(
  (s) => s as unknown as ServiceDefinition<PlatformConfig>,
);

/** Each service's public URL variable (apps/<app>/src/config.ts). */
const PUBLIC_URL: Record<string, string> = {
  'offers-api': 'OFFERS_PUBLIC_URL',
  'vector-api': 'VECTOR_PUBLIC_URL',
  'payments-api': 'PAYMENTS_PUBLIC_URL',
};

type Schema = Record<string, unknown> & {
  $ref?: string;
  type?: string;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  enum?: unknown[];
};
interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  schema: Schema;
}
interface Response {
  description: string;
  content?: Record<string, { schema: Schema }>;
}
interface Operation {
  operationId: string;
  tags?: string[];
  security?: Array<Record<string, unknown>>;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, Response>;
}
interface Document {
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

function operations(doc: Document): Array<[string, Operation]> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Operation]),
  );
}

const resolve = (doc: Document, schema: Schema | undefined): Schema | undefined =>
  schema?.$ref ? doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;

/** The class an @ApiProperty({ type }) of `type.property` names (a nested request object). */
function nestedClass(type: new () => unknown, property: string): (new () => unknown) | undefined {
  const options = Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, type.prototype as object, property) as
    { type?: unknown } | undefined;
  return typeof options?.type === 'function' ? (options.type as new () => unknown) : undefined;
}

/**
 * Rules JSON Schema cannot say, documented in words instead: decimal places, Stripe's
 * metadata rules (its value limits are in the schema), nesting and conditional rules.
 */
const INEXPRESSIBLE = new Set(['maxDecimalPlaces', 'isMetadata']);
const STRUCTURAL_TYPES = new Set(['nestedValidation', 'conditionalValidation', 'whitelistValidation']);

/** Whether one value of a property passes that property's validators (the others absent). */
function admits(type: new () => unknown, property: string, value: unknown): boolean {
  const instance = plainToInstance(type, { [property]: value }) as object;
  return !validateSync(instance, { skipMissingProperties: true, forbidUnknownValues: false }).some(
    (e) => e.property === property,
  );
}

/** Disagreements between a property's validators and its documented schema. */
function propertyProblems(
  where: string,
  type: new () => unknown,
  property: string,
  rules: ValidationMetadata[],
  schema: Schema,
  required: boolean,
): string[] {
  const problems: string[] = [];
  const expect = (ok: boolean, what: string): void => {
    if (!ok) problems.push(`${where}: ${what} (schema ${JSON.stringify(schema)})`);
  };
  expect(required === !rules.some((r) => r.name === IS_OPTIONAL), `required should be ${!required}`);
  for (const rule of rules) {
    const s = rule.each ? (schema.items ?? {}) : schema;
    const c = rule.constraints as unknown[];
    switch (rule.name ?? '') {
      case IS_STRING:
        expect(s.type === 'string', 'type string');
        break;
      case IS_INT:
        expect(s.type === 'integer', 'type integer');
        break;
      case IS_NUMBER:
        expect(s.type === 'number', 'type number');
        break;
      case IS_BOOLEAN:
        expect(s.type === 'boolean', 'type boolean');
        break;
      case IS_OBJECT:
        // a nested DTO is documented by reference to its (object) schema
        expect(s.type === 'object' || s.$ref !== undefined, 'type object');
        break;
      case IS_ARRAY:
        expect(s.type === 'array', 'type array');
        break;
      case IS_LENGTH:
        expect(s.minLength === c[0] && s.maxLength === c[1], `minLength ${String(c[0])}, maxLength ${String(c[1])}`);
        break;
      case MIN_LENGTH:
        expect(s.minLength === c[0], `minLength ${String(c[0])}`);
        break;
      case MAX_LENGTH:
        expect(s.maxLength === c[0], `maxLength ${String(c[0])}`);
        break;
      case MIN:
        expect(s.minimum === c[0] && s.exclusiveMinimum === undefined, `minimum ${String(c[0])}`);
        break;
      case MAX:
        expect(s.maximum === c[0], `maximum ${String(c[0])}`);
        break;
      case IS_POSITIVE:
        expect(s.minimum === 0 && s.exclusiveMinimum === true, 'minimum 0, exclusive');
        break;
      case ARRAY_MIN_SIZE:
        expect(s.minItems === c[0], `minItems ${String(c[0])}`);
        break;
      case ARRAY_MAX_SIZE:
        expect(s.maxItems === c[0], `maxItems ${String(c[0])}`);
        break;
      case MATCHES:
        expect(s.pattern === (c[0] as RegExp).source, `pattern ${String(c[0])}`);
        break;
      case IS_IN:
        expect(JSON.stringify(s.enum) === JSON.stringify(c[0]), `enum ${JSON.stringify(c[0])}`);
        break;
      case IS_EMAIL:
        expect(s.format === 'email', 'format email');
        break;
      case 'isDisplayName':
        expect(s.pattern === c[0], `pattern ${String(c[0])}`);
        break;
      case 'isTimestamp':
        expect(
          (c[0] as { unixSeconds?: boolean }).unixSeconds ? Array.isArray(s.anyOf) : s.format === 'date-time',
          'a date-time (or Unix seconds)',
        );
        break;
      default:
        if (!INEXPRESSIBLE.has(rule.name ?? '') && !STRUCTURAL_TYPES.has(rule.type)) {
          problems.push(`${where}: validator ${rule.name ?? rule.type} is neither in the schema nor known to be inexpressible`);
        }
    }
  }
  // The documented numbers, tried on the validators themselves.
  if (typeof schema.maxLength === 'number' && schema.pattern === undefined && schema.format === undefined) {
    expect(admits(type, property, 'a'.repeat(schema.maxLength)), `admits ${schema.maxLength} characters`);
    expect(!admits(type, property, 'a'.repeat(schema.maxLength + 1)), `refuses ${schema.maxLength + 1} characters`);
  }
  if (Array.isArray(schema.enum)) {
    for (const value of schema.enum) expect(admits(type, property, value), `admits ${JSON.stringify(value)}`);
    expect(!admits(type, property, 'not-one-of-them'), 'refuses a value outside the enum');
  }
  if (typeof schema.maximum === 'number' && schema.type === 'integer' && !schema.exclusiveMinimum) {
    expect(admits(type, property, schema.maximum), `admits ${schema.maximum}`);
    expect(!admits(type, property, schema.maximum + 1), `refuses ${schema.maximum + 1}`);
  }
  if (typeof schema.minimum === 'number' && schema.type === 'integer') {
    expect(admits(type, property, schema.minimum), `admits ${schema.minimum}`);
    expect(!admits(type, property, schema.minimum - 1), `refuses ${schema.minimum - 1}`);
  }
  return problems;
}

/** Disagreements between a request class (and the classes nested in it) and its documented schema. */
function classProblems(doc: Document, where: string, type: new () => unknown, schema: Schema | undefined): string[] {
  if (!schema) return [`${where}: no schema`];
  const rules = validationMetadataOf(type);
  const documented = Object.keys(schema.properties ?? {}).sort();
  const problems: string[] = [];
  if (JSON.stringify(documented) !== JSON.stringify([...rules.keys()].sort())) {
    problems.push(`${where}: documents ${documented.join(', ')} but validates ${[...rules.keys()].sort().join(', ')}`);
  }
  if (schema.additionalProperties !== false)
    problems.push(`${where}: unknown fields are refused, so additionalProperties: false`);
  for (const [property, propertyRules] of rules) {
    const s = schema.properties?.[property];
    if (!s) continue;
    const required = schema.required?.includes(property) ?? false;
    problems.push(...propertyProblems(`${where}.${property}`, type, property, propertyRules, s, required));
    const nested = nestedClass(type, property);
    const ref = s.$ref ? s : s.items?.$ref ? s.items : undefined;
    if (nested && ref) problems.push(...classProblems(doc, `${where}.${property}`, nested, resolve(doc, ref)));
  }
  return problems;
}

/**
 * The one exemption from "a JSON body is a validated class": the Qdrant-compatible routes
 * (tag `qdrant`, docs/qdrant.md). Their bodies are Qdrant's, fixed by another product and
 * full of unions class-validator cannot say (a vector or `{nearest}`, `with_payload` as a
 * boolean, a list or `{include}`); QdrantService checks them by hand and refuses any field
 * it does not read (QDRANT_BODY_FIELDS). So here: the documented body is an object that
 * refuses unknown fields and lists exactly the fields the service reads (docs/decisions.md 271).
 */
const isQdrant = (op: Operation): boolean => op.tags?.includes('qdrant') === true;

/**
 * Stripe's `/v1` (tag `stripe`, docs/stripe.md): every error in Stripe's body, and at the
 * status Stripe answers: a conflict that is not an idempotency race (409) and an unprocessable
 * request (422, a reused Idempotency-Key among them) are 400 there (the `stripe` SDK retries
 * every 409); a key still in flight stays 409.
 */
const isStripe = (op: Operation): boolean => op.tags?.includes('stripe') === true;
const stripeStatus = (code: string, status: number): number =>
  code !== 'idempotency_key_in_use' && (status === 409 || status === 422) ? 400 : status;

function qdrantBodyProblems(key: string, methodName: string, schema: Schema | undefined): string[] {
  const fields = (QDRANT_BODY_FIELDS as Record<string, readonly string[] | undefined>)[methodName];
  if (!fields) return [`${key}: a Qdrant body whose fields QDRANT_BODY_FIELDS.${methodName} does not list`];
  const problems: string[] = [];
  if (schema?.type !== 'object') problems.push(`${key}: the body is an object`);
  if (schema?.additionalProperties !== false) problems.push(`${key}: unknown fields are refused, so additionalProperties: false`);
  const documented = Object.keys(schema?.properties ?? {}).sort();
  if (JSON.stringify(documented) !== JSON.stringify([...fields].sort())) {
    problems.push(`${key}: documents ${documented.join(', ')} but reads ${[...fields].sort().join(', ')}`);
  }
  for (const r of schema?.required ?? []) if (!fields.includes(r)) problems.push(`${key}: requires ${r}, which it does not read`);
  return problems;
}

describe.each(services)('$name OpenAPI document', (definition) => {
  let t: TestApp<PlatformConfig>;
  let doc: Document;
  const publicUrl = PUBLIC_URL[definition.name];

  beforeAll(async () => {
    t = await startTestApp(definition, { [publicUrl]: '', TRUST_PROXY: 'false', HOST: '0.0.0.0' });
    doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<Document>();
  });
  afterAll(async () => {
    await t.close();
  });

  describe('servers', () => {
    const host = { host: 'api.example.test:8443' };

    it("is the request's origin in /openapi.json, /openapi.yaml and the /docs UI (Try it out)", async () => {
      const json = await t.app.inject({ method: 'GET', url: '/openapi.json', headers: host });
      expect(json.json<Document>().servers).toEqual([{ url: 'http://api.example.test:8443' }]);
      const yaml = await t.app.inject({ method: 'GET', url: '/openapi.yaml', headers: host });
      expect(yaml.statusCode).toBe(200);
      expect(yaml.body).toMatch(/^servers:\n {2}- url: http:\/\/api\.example\.test:8443$/m);
      const ui = await t.app.inject({ method: 'GET', url: '/docs/swagger-ui-init.js', headers: host });
      expect(ui.statusCode).toBe(200);
      expect(ui.body).toMatch(/"servers": \[\s*\{\s*"url": "http:\/\/api\.example\.test:8443"\s*\}\s*\]/);
      // they depend on the Host: no shared cache may hand one client's copy to another
      for (const res of [json, yaml, ui]) {
        expect([res.headers.vary, res.headers['cache-control']]).toEqual([
          'Host, X-Forwarded-Host, X-Forwarded-Proto',
          'no-store',
        ]);
      }
    });

    it('never reflects a hostile Host: the listen address instead', async () => {
      for (const hostile of ['evil.example/"><script>alert(1)</script>', 'user@evil.example', 'evil.example:99999', 'a b']) {
        for (const url of ['/openapi.json', '/openapi.yaml', '/docs/swagger-ui-init.js']) {
          const res = await t.app.inject({ method: 'GET', url, headers: { host: hostile } });
          expect([hostile, url, res.statusCode]).toEqual([hostile, url, 200]);
          expect(res.body).not.toContain('evil.example');
          expect(res.body).toContain(`http://localhost:${t.config.port}`);
        }
      }
    });

    it('takes no X-Forwarded-Proto or X-Forwarded-Host from a peer TRUST_PROXY does not trust', async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: '/openapi.json',
        headers: { host: 'api.example.test', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'proxy.example' },
      });
      expect(res.json<Document>().servers).toEqual([{ url: 'http://api.example.test' }]);
    });

    it(`is ${publicUrl} when it is set, whatever the request says`, async () => {
      const configured = await startTestApp(definition, { [publicUrl]: 'https://api.example.com/base/' });
      try {
        for (const url of ['/openapi.json', '/docs/swagger-ui-init.js']) {
          const res = await configured.app.inject({
            method: 'GET',
            url,
            headers: { host: 'other.example', 'x-forwarded-proto': 'http' },
          });
          expect(res.body).toMatch(/"servers": ?\[\s*\{\s*"url": ?"https:\/\/api\.example\.com\/base"\s*\}\s*\]/);
          expect(res.body).not.toContain('other.example');
        }
      } finally {
        await configured.close();
      }
    });
  });

  it('says of every request body and query string what the validators enforce', () => {
    const routes = documentedRoutes(t.app);
    const problems: string[] = [];
    let checked = 0;
    for (const [key, op] of operations(doc)) {
      const route = routes.get(op.operationId);
      if (!route) {
        problems.push(`${key}: no controller route for ${op.operationId}`);
        continue;
      }
      const json = op.requestBody?.content['application/json'];
      if (json && isQdrant(op)) {
        problems.push(...qdrantBodyProblems(key, route.methodName, resolve(doc, json.schema)));
        checked++;
      } else if (json) {
        if (!route.bodyType) problems.push(`${key}: a JSON body without a validated class`);
        else
          problems.push(...classProblems(doc, `${key} body ${route.bodyType.name}`, route.bodyType, resolve(doc, json.schema)));
        checked++;
      }
      const query = (op.parameters ?? []).filter((p) => p.in === 'query');
      if (query.length > 0 || route.queryType) {
        if (!route.queryType) {
          problems.push(`${key}: query parameters without a validated class`);
          continue;
        }
        const rules = validationMetadataOf(route.queryType);
        const names = query.map((p) => p.name).sort();
        if (JSON.stringify(names) !== JSON.stringify([...rules.keys()].sort())) {
          problems.push(`${key}: documents query ${names.join(', ')} but validates ${[...rules.keys()].sort().join(', ')}`);
        }
        for (const p of query) {
          const r = rules.get(p.name);
          if (r)
            problems.push(...propertyProblems(`${key} ?${p.name}`, route.queryType, p.name, r, p.schema, p.required === true));
        }
        checked++;
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(3);
  });

  it("lists every operation's error statuses with the catalogue's codes and the error body", () => {
    const problems: string[] = [];
    for (const [key, op] of operations(doc)) {
      const statuses = Object.keys(op.responses).filter((s) => Number(s) >= 400);
      const must = ['500', '503'];
      if (op.security?.length) must.push('401', '429');
      if (op.requestBody?.content['application/json']) must.push('400', '413', '415');
      if ((op.parameters ?? []).some((p) => p.in === 'path')) must.push('400', '404');
      for (const status of must) if (!statuses.includes(status)) problems.push(`${key}: no ${status}`);
      const ownBody = key === 'POST /oauth/token';
      // The Qdrant-compatible routes answer every error, 5xx too, in Qdrant's body (their
      // clients read nothing else; docs/qdrant.md): the same statuses and codes, that body.
      // Stripe's /v1 (tag stripe, docs/stripe.md) likewise in Stripe's body, at Stripe's statuses.
      const errorBody = isQdrant(op)
        ? '#/components/schemas/QdrantErrorBody'
        : isStripe(op)
          ? '#/components/schemas/StripeErrorBody'
          : '#/components/schemas/ErrorBody';
      for (const status of statuses) {
        const response = op.responses[status];
        const schema = response.content?.['application/json']?.schema.$ref;
        if (ownBody && Number(status) < 500) {
          if (schema !== '#/components/schemas/OAuthErrorDto') problems.push(`${key} ${status}: the RFC 6749 body`);
          continue;
        }
        if (schema !== errorBody) problems.push(`${key} ${status}: not the error body`);
        const codes = [...response.description.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
        if (codes.length === 0) problems.push(`${key} ${status}: no codes in "${response.description}"`);
        for (const code of codes) {
          const spec = errorSpec(code);
          // resource_missing is thrown as 400 for an object named in the body or query (Stripe's convention)
          const override = code === 'resource_missing' && status === '400';
          const expected = spec === undefined ? undefined : isStripe(op) ? stripeStatus(code, spec.status) : spec.status;
          if (!spec) problems.push(`${key} ${status}: ${code} is in no catalogue`);
          else if (String(expected) !== status && !override) problems.push(`${key} ${status}: ${code} is ${expected}`);
        }
      }
    }
    expect(problems).toEqual([]);
    const body = doc.components.schemas.ErrorBody;
    expect(body?.required).toEqual(['error']);
    expect(doc.components.schemas.ErrorDetails?.required).toEqual(['type', 'code', 'message', 'request_id']);
  });
});

describe('servers behind a proxy TRUST_PROXY trusts', () => {
  let t: TestApp<PlatformConfig>;
  beforeAll(async () => {
    t = await startTestApp(services[0], { OFFERS_PUBLIC_URL: '', TRUST_PROXY: '1' });
  });
  afterAll(async () => {
    await t.close();
  });

  const servers = async (headers: Record<string, string>): Promise<unknown> =>
    (await t.app.inject({ method: 'GET', url: '/openapi.json', headers })).json<Document>().servers;

  it('takes the scheme and host the proxy forwards', async () => {
    expect(await servers({ host: 'internal:3000', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com' })).toEqual(
      [{ url: 'https://api.example.com' }],
    );
  });

  it('but only http or https, and only a plain host', async () => {
    expect(await servers({ host: 'internal:3000', 'x-forwarded-proto': 'javascript' })).toEqual([
      { url: 'http://internal:3000' },
    ]);
    expect(await servers({ host: 'internal:3000', 'x-forwarded-host': 'evil.example/x?' })).toEqual([
      { url: `http://localhost:${t.config.port}` },
    ]);
  });
});
