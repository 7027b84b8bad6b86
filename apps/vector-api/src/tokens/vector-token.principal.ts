/** An opaque API token of one project (created by the admin API or by the project itself). */
export interface VectorTokenPrincipal {
  readonly kind: 'vector_token';
  readonly tokenId: string;
  /** The project the token belongs to: every table route is scoped to it. */
  readonly projectId: string;
}
