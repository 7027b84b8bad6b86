import { Injectable } from '@nestjs/common';
import type { ConsoleTenant, ConsoleTenants } from '@app/console';
import { PartnersRepository } from './partners.repository';

/** Partners, as the console signs in to them. */
@Injectable()
export class PartnerConsoleTenants implements ConsoleTenants {
  readonly idField = 'partner_id';
  constructor(private readonly partners: PartnersRepository) {}

  async describe(tenantId: string): Promise<ConsoleTenant | null> {
    const partner = await this.partners.findPartner(tenantId);
    return partner && { id: partner.id, name: partner.name };
  }
}
