import { Injectable } from '@nestjs/common';
import { Clock, type PrismaTx } from '@app/platform';
import type { TermsDto, TermsPublishDto } from './dto/terms.dto';
import { type TermsRecord, TermsRepository } from './terms.repository';
import { OffersError } from '../errors';

const view = (t: TermsRecord): TermsDto => ({
  version: t.version,
  title: t.title,
  body: t.body,
  published_at: t.publishedAt.toISOString(),
});

@Injectable()
export class TermsService {
  constructor(
    private readonly repository: TermsRepository,
    private readonly clock: Clock,
  ) {}

  async current(): Promise<TermsDto> {
    const terms = await this.repository.current();
    if (!terms) throw new OffersError('resource_missing', 'No terms have been published yet.');
    return view(terms);
  }

  /**
   * An indication must name the current version (platform contract); any other value is
   * 400 terms_version_invalid with a message naming the current one (v1.4.0 "clearer errors").
   */
  async requireCurrent(version: string, tx?: PrismaTx): Promise<string> {
    return checkTermsVersion(version, (await this.repository.current(tx))?.version);
  }

  async publish(dto: TermsPublishDto): Promise<TermsDto> {
    const created = await this.repository.publish({ ...dto, publishedAt: this.clock.now() });
    if (!created) {
      throw new OffersError('resource_already_exists', `Terms version '${dto.version}' already exists.`, { param: 'version' });
    }
    return view(created);
  }
}

/** `version` when it is the current one (`current`, undefined if none is published); else 400 terms_version_invalid. */
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
