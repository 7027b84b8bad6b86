import { Injectable } from '@nestjs/common';
import type { ConsoleAdminTenant, ConsoleTenant, ConsoleTenants } from '@app/console';
import { PartnersRepository } from './partners.repository';

/** How the admin console routes (console-links, console-sessions) name a partner. */
export const PARTNER_CONSOLE_ADMIN: ConsoleAdminTenant = {
  idField: 'partner_id',
  noun: 'partner',
  example: 'partner_4hXk2mQw8Zx1Lc7Vb4nTp9Yd',
};

/** Partners, as the console signs in to them. */
@Injectable()
export class PartnerConsoleTenants implements ConsoleTenants {
  readonly idField = PARTNER_CONSOLE_ADMIN.idField;
  constructor(private readonly partners: PartnersRepository) {}

  async describe(tenantId: string): Promise<ConsoleTenant | null> {
    const partner = await this.partners.findPartner(tenantId);
    return partner && { id: partner.id, name: partner.name };
  }
}
