import { Injectable } from '@nestjs/common';
import { Clock, TransactionRunner } from '@app/platform';
import { type TermsDto, type TermsPublishDto, termsView } from './dto/terms.dto';
import { TermsRepository } from './terms.repository';
import { OffersError } from '../errors';

@Injectable()
export class TermsService {
  constructor(
    private readonly repository: TermsRepository,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
  ) {}

  async current(): Promise<TermsDto> {
    const terms = await this.repository.current();
    if (!terms) throw new OffersError('resource_missing', 'No terms have been published yet.');
    return termsView(terms);
  }

  async publish(dto: TermsPublishDto): Promise<TermsDto> {
    const terms = { version: dto.version, title: dto.title, body: dto.body, publishedAt: this.clock.now() };
    const created = await this.transactions.run((tx) => this.repository.publish(tx, terms));
    if (!created) {
      throw new OffersError('resource_already_exists', `Terms version '${dto.version}' already exists.`, { param: 'version' });
    }
    return termsView(created);
  }
}
