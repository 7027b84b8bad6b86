/** An opaque API token created by the admin API. */
export interface VectorTokenPrincipal {
  readonly kind: 'vector_token';
  readonly tokenId: string;
}
