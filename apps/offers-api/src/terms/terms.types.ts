/** One published version of the investor terms (global: the same for every partner). */
export interface TermsRecord {
  readonly version: string;
  readonly title: string;
  readonly body: string;
  readonly publishedAt: Date;
}
