import { OffersError } from '../errors';

/**
 * An indication must name the current terms version (platform contract); any other value
 * is 400 terms_version_invalid with a message naming the current one (v1.4.0 "clearer
 * errors"). Owned by terms, used by indications, which reads the current version in the
 * same statement that locks the offer (IndicationsRepository.lockVisibleOffer).
 *
 * Returns `version` when it is `current` (undefined when none is published).
 */
export function checkTermsVersion(version: string, current: string | undefined): string {
  if (current === undefined) {
    throw new OffersError('terms_version_invalid', 'No terms have been published yet; indications cannot be accepted.', {
      param: 'terms_version',
    });
  }
  if (current !== version) {
    throw new OffersError(
      'terms_version_invalid',
      `terms_version '${version}' is not the current terms version; the current version is '${current}' (GET /api/v1/terms).`,
      { param: 'terms_version', details: { current_version: current } },
    );
  }
  return current;
}
