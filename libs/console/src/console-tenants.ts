/** A tenant as the console shows it: the app's tenant (the customer of the service) a session acts as. */
export interface ConsoleTenant {
  readonly id: string;
  readonly name: string;
}

/** What an app tells the console about its tenants (it provides a class implementing this to ConsoleModule). */
export interface ConsoleTenants {
  /** What the admin route's body names the tenant by: `partner_id`, `project_id` or `account_id`. */
  readonly idField: 'partner_id' | 'project_id' | 'account_id';
  /** The tenant, or null when there is none with this id. */
  describe(tenantId: string): Promise<ConsoleTenant | null>;
}

export const CONSOLE_TENANTS = Symbol('CONSOLE_TENANTS');
