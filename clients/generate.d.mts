/** Types of generate.mjs, for test/architecture/clients.spec.ts. */
export interface ClientPackage {
  /** The package's folder under clients/. */
  readonly dir: string;
  /** The service whose OpenAPI snapshot (test/platform/openapi/<service>.json) it is generated from. */
  readonly service: string;
}
export declare const ROOT: string;
export declare const CLIENTS: readonly ClientPackage[];
export declare function snapshotPath(client: ClientPackage): string;
export declare function schemaPath(client: ClientPackage): string;
/** The text schema.d.ts must have: generated from the snapshot now, formatted as the repository formats. */
export declare function generateSchema(client: ClientPackage): Promise<string>;
