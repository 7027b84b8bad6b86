import { Authenticated, CredentialHeaders, CurrentPrincipal } from '@app/auth';
import { ApiErrorBody, type ApiErrorRef, ApiErrors, BodyLimit, RenderErrorsWith } from '@app/platform';
import {
  All,
  applyDecorators,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Put,
  Query,
  Req,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { ApiBody, ApiExcludeController, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { VectorConfig } from '../../config';
import { InsertAdmission } from '../../tables/insert-admission';
import { RawBody } from '../../tables/raw-body';
import { QdrantBodyPipe } from './qdrant-body.pipe';
import type { VectorTokenPrincipal } from '../../tokens/vector-token.principal';
import { QdrantParamsDto } from './dto/qdrant.dto';
import { QdrantEnvelope } from './qdrant-envelope';
import { ANY, envelope, QDRANT_BODIES, QDRANT_ERROR_BODY, UPDATE_RESULT } from './qdrant-openapi';
import { qdrantError, qdrantRouteError, unsupported } from './qdrant-error';
import { type PointRecord, QdrantService, type ScoredPoint, type UpdateResult } from './qdrant.service';

/** The version GET / reports: the official client (1.19) warns unless major matches and minor is within one. */
export const QDRANT_COMPAT_VERSION = '1.19.0';

/**
 * One route of the Qdrant-compatible API: 200 with the envelope, every error in Qdrant's body
 * (the platform's own errors too: RenderErrorsWith; documented so: ApiErrorBody), under the
 * `qdrant` tag. The error statuses and their codes are the platform's (docs/errors.md):
 * what the route has (credentials, a body, path parameters) plus `codes`.
 */
function QdrantRoute(summary: string, result: SchemaObject, body?: SchemaObject, ...codes: ApiErrorRef[]): MethodDecorator {
  return applyDecorators(
    HttpCode(200),
    RenderErrorsWith(qdrantRouteError),
    ApiOperation({ summary }),
    ApiOkResponse({ schema: envelope(result) }),
    ApiErrors(...QDRANT_ERRORS, ...codes),
    ...(body === undefined ? [] : [ApiBody({ schema: body })]),
  );
}

/**
 * The codes every collection route can answer with besides the implicit ones: the adapter's
 * own 400 (a Qdrant field it refuses, an unsupported feature named, in Qdrant's words and
 * without a code) and 404 (a missing or foreign collection, a missing point).
 */
const QDRANT_ERRORS: ApiErrorRef[] = [
  {
    code: 'parameter_invalid',
    when: "a Qdrant request the adapter refuses, or a Qdrant feature it lacks, named (Qdrant's message, no code)",
  },
  { code: 'resource_missing', when: "no such collection in the project, or no such point (Qdrant's message, no code)" },
];
/** What the tables answer on reads of a collection. */
const READ_ERRORS: ApiErrorRef[] = ['filter_too_complex', 'table_loading'];
/** What the tables answer on writes of points. */
const WRITE_ERRORS: ApiErrorRef[] = ['dimension_mismatch', 'metadata_too_large', 'table_loading', 'filter_too_complex'];

const wait = (q: QdrantParamsDto): boolean => q.wait === 'true';

/** `GET /`: who answers, as Qdrant's root does (the official client checks the version on construction). */
@ApiTags('qdrant')
@ApiErrorBody(QDRANT_ERROR_BODY)
@Controller('/') // a literal path, as docs:architecture's URL table reads it
export class QdrantRootController {
  @Get()
  @RenderErrorsWith(qdrantRouteError)
  @UseInterceptors()
  @ApiOperation({ summary: 'Qdrant-compatible API: the service name and the Qdrant version it speaks' })
  @ApiOkResponse({
    schema: { type: 'object', properties: { title: { type: 'string' }, version: { type: 'string' } } },
  })
  root(): { title: string; version: string } {
    return { title: 'vector-api', version: QDRANT_COMPAT_VERSION };
  }
}

/** The Qdrant-compatible collections and points of the caller's project (docs/qdrant.md). */
@ApiTags('qdrant')
@ApiErrorBody(QDRANT_ERROR_BODY)
@Authenticated('vector_token')
@CredentialHeaders('api-key')
@ApiSecurity('qdrant_api_key')
@UseInterceptors(QdrantEnvelope)
@Controller('collections')
export class QdrantController {
  constructor(private readonly qdrant: QdrantService) {}

  @Get()
  @QdrantRoute('List the collections (tables) of the project', ANY)
  list(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Query() _q: QdrantParamsDto,
  ): Promise<{ collections: Array<{ name: string }> }> {
    return this.qdrant.list(caller);
  }

  @Put(':c')
  @QdrantRoute(
    'Create a collection (an hnsw table): vectors {size, distance}',
    { type: 'boolean' },
    QDRANT_BODIES.create,
    { code: 'resource_already_exists', when: 'the project has a collection (table) with this name' },
    'table_limit_reached',
  )
  create(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() _q: QdrantParamsDto,
    @RawBody(QdrantBodyPipe) body: unknown,
  ): Promise<true> {
    return this.qdrant.create(caller, c, body);
  }

  @Get(':c')
  @QdrantRoute('Collection info: status, points_count, config', ANY)
  info(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() _q: QdrantParamsDto,
  ): Promise<Record<string, unknown>> {
    return this.qdrant.info(caller, c);
  }

  @Get(':c/exists')
  @QdrantRoute('Whether the collection exists', { type: 'object', properties: { exists: { type: 'boolean' } } })
  exists(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() _q: QdrantParamsDto,
  ): Promise<{ exists: boolean }> {
    return this.qdrant.exists(caller, c);
  }

  @Delete(':c')
  @QdrantRoute('Delete a collection and its points (false when there was none)', { type: 'boolean' })
  drop(@CurrentPrincipal() caller: VectorTokenPrincipal, @Param('c') c: string, @Query() _q: QdrantParamsDto): Promise<boolean> {
    return this.qdrant.drop(caller, c);
  }

  @Put(':c/points')
  @UseGuards(InsertAdmission)
  @BodyLimit((config: VectorConfig) => config.VECTOR_INSERT_BODY_LIMIT_BYTES)
  @QdrantRoute(
    'Upsert points ({points} or the columnar {batch}), all or nothing, any number within the body limit',
    UPDATE_RESULT,
    QDRANT_BODIES.upsert,
    ...WRITE_ERRORS,
    'project_capacity_reached',
  )
  upsert(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() q: QdrantParamsDto,
    @RawBody(QdrantBodyPipe) body: unknown,
  ): Promise<UpdateResult> {
    return this.qdrant.upsert(caller, c, body, wait(q));
  }

  @Post(':c/points')
  @QdrantRoute('Retrieve points by id', { type: 'array', items: ANY }, QDRANT_BODIES.retrieve, 'table_loading')
  retrieve(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() _q: QdrantParamsDto,
    @RawBody(QdrantBodyPipe) body: unknown,
  ): Promise<PointRecord[]> {
    return this.qdrant.retrieve(caller, c, body);
  }

  @Get(':c/points/:id')
  @QdrantRoute('A point by id (404 when missing)', ANY, undefined, 'table_loading')
  point(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Param('id') id: string,
    @Query() _q: QdrantParamsDto,
  ): Promise<PointRecord> {
    return this.qdrant.point(caller, c, id);
  }

  @Post(':c/points/query')
  @BodyLimit((config: VectorConfig) => config.VECTOR_QUERY_BODY_LIMIT_BYTES)
  @QdrantRoute('Query: nearest points of a vector (or a listing without query)', ANY, QDRANT_BODIES.query, ...READ_ERRORS)
  query(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() _q: QdrantParamsDto,
    @RawBody(QdrantBodyPipe) body: unknown,
  ): Promise<{ points: Array<ScoredPoint | PointRecord> }> {
    return this.qdrant.query(caller, c, body);
  }

  @Post(':c/points/query/batch')
  @BodyLimit((config: VectorConfig) => config.VECTOR_QUERY_BODY_LIMIT_BYTES)
  @QdrantRoute('A batch of queries ({searches})', { type: 'array', items: ANY }, QDRANT_BODIES.queryBatch, ...READ_ERRORS)
  queryBatch(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() _q: QdrantParamsDto,
    @RawBody(QdrantBodyPipe) body: unknown,
  ): Promise<Array<{ points: Array<ScoredPoint | PointRecord> }>> {
    return this.qdrant.queryBatch(caller, c, body);
  }

  @Post(':c/points/search')
  @BodyLimit((config: VectorConfig) => config.VECTOR_QUERY_BODY_LIMIT_BYTES)
  @QdrantRoute('Search (legacy): nearest points of a vector', { type: 'array', items: ANY }, QDRANT_BODIES.search, ...READ_ERRORS)
  search(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() _q: QdrantParamsDto,
    @RawBody(QdrantBodyPipe) body: unknown,
  ): Promise<ScoredPoint[]> {
    return this.qdrant.search(caller, c, body);
  }

  @Post(':c/points/search/batch')
  @BodyLimit((config: VectorConfig) => config.VECTOR_QUERY_BODY_LIMIT_BYTES)
  @QdrantRoute(
    'A batch of searches ({searches})',
    { type: 'array', items: { type: 'array', items: ANY } },
    QDRANT_BODIES.searchBatch,
    ...READ_ERRORS,
  )
  searchBatch(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() _q: QdrantParamsDto,
    @RawBody(QdrantBodyPipe) body: unknown,
  ): Promise<ScoredPoint[][]> {
    return this.qdrant.searchBatch(caller, c, body);
  }

  @Post(':c/points/delete')
  @QdrantRoute(
    'Delete points by id ({points}) or by filter',
    UPDATE_RESULT,
    QDRANT_BODIES.delete,
    'table_loading',
    'filter_too_complex',
    'filter_matches_all',
  )
  delete(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() q: QdrantParamsDto,
    @RawBody(QdrantBodyPipe) body: unknown,
  ): Promise<UpdateResult> {
    return this.qdrant.delete(caller, c, body, wait(q));
  }

  @Post(':c/points/scroll')
  @QdrantRoute('Scroll: points in id byte order, a page at a time (next_page_offset)', ANY, QDRANT_BODIES.scroll, ...READ_ERRORS)
  scroll(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() _q: QdrantParamsDto,
    @RawBody(QdrantBodyPipe) body: unknown,
  ): Promise<{ points: PointRecord[]; next_page_offset: number | string | null }> {
    return this.qdrant.scroll(caller, c, body);
  }

  @Post(':c/points/count')
  @QdrantRoute(
    'Count points, all or matching a filter (always exact)',
    { type: 'object', properties: { count: { type: 'integer' } } },
    QDRANT_BODIES.count,
    ...READ_ERRORS,
  )
  count(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() _q: QdrantParamsDto,
    @RawBody(QdrantBodyPipe) body: unknown,
  ): Promise<{ count: number }> {
    return this.qdrant.count(caller, c, body);
  }

  @Post(':c/points/payload')
  @QdrantRoute(
    'Set payload keys (merge top-level keys) of points by id or filter',
    UPDATE_RESULT,
    QDRANT_BODIES.setPayload,
    ...WRITE_ERRORS,
  )
  setPayload(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() q: QdrantParamsDto,
    @RawBody(QdrantBodyPipe) body: unknown,
  ): Promise<UpdateResult> {
    return this.qdrant.setPayload(caller, c, body, wait(q), false);
  }

  @Put(':c/points/payload')
  @QdrantRoute('Overwrite the payload of points by id or filter', UPDATE_RESULT, QDRANT_BODIES.overwritePayload, ...WRITE_ERRORS)
  overwritePayload(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() q: QdrantParamsDto,
    @RawBody(QdrantBodyPipe) body: unknown,
  ): Promise<UpdateResult> {
    return this.qdrant.setPayload(caller, c, body, wait(q), true);
  }

  @Post(':c/points/payload/delete')
  @QdrantRoute('Delete payload keys of points by id or filter', UPDATE_RESULT, QDRANT_BODIES.deletePayload, ...WRITE_ERRORS)
  deletePayload(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() q: QdrantParamsDto,
    @RawBody(QdrantBodyPipe) body: unknown,
  ): Promise<UpdateResult> {
    return this.qdrant.deletePayload(caller, c, body, wait(q));
  }

  @Post(':c/points/payload/clear')
  @QdrantRoute('Clear the payload of points by id or filter', UPDATE_RESULT, QDRANT_BODIES.clearPayload, ...WRITE_ERRORS)
  clearPayload(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() q: QdrantParamsDto,
    @RawBody(QdrantBodyPipe) body: unknown,
  ): Promise<UpdateResult> {
    return this.qdrant.clearPayload(caller, c, body, wait(q));
  }

  @Put(':c/index')
  @QdrantRoute('Create a payload index: accepted (filters need no index here)', UPDATE_RESULT, QDRANT_BODIES.createIndex)
  createIndex(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() q: QdrantParamsDto,
    @RawBody(QdrantBodyPipe) body: unknown,
  ): Promise<UpdateResult> {
    return this.qdrant.payloadIndex(caller, c, body ?? {}, wait(q));
  }

  @Delete(':c/index/:field')
  @QdrantRoute('Delete a payload index: accepted', UPDATE_RESULT)
  deleteIndex(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Param('field') _field: string,
    @Query() q: QdrantParamsDto,
  ): Promise<UpdateResult> {
    return this.qdrant.payloadIndex(caller, c, undefined, wait(q));
  }
}

/** Qdrant routes this service does not have, by the path segment that names them. */
const FEATURES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\/points\/recommend/, 'Recommend (points/recommend)'],
  [/\/points\/discover/, 'Discover (points/discover)'],
  [/\/groups$/, 'Grouped search (…/groups)'],
  [/\/points\/vectors/, 'Updating or deleting vectors alone (points/vectors)'],
  [/\/points\/batch$/, 'Batch update operations (points/batch)'],
  [/\/facet$/, 'Facets (facet)'],
  [/\/snapshots/, 'The snapshots API'],
  [/\/aliases/, 'Collection aliases'],
  [/\/cluster/, 'Cluster operations'],
  [/\/shards/, 'Shard keys'],
  [/\/points\/search\/matrix/, 'The distance matrix API'],
];

/**
 * Anything else under /collections: Qdrant's body, a 400 naming the feature when Qdrant has
 * it and this service does not, else a 404. No credentials needed to learn that a route
 * does not exist; nothing about the project is read.
 */
@ApiExcludeController()
@Controller('collections')
export class QdrantFallbackController {
  @All('*')
  @RenderErrorsWith(qdrantRouteError)
  fallback(@Req() request: FastifyRequest): never {
    const path = (request.url.split('?')[0] ?? '').replace(/\/+$/, '');
    const feature = FEATURES.find(([pattern]) => pattern.test(path));
    if (feature) throw unsupported(feature[1]);
    if (request.method === 'PATCH' && /^\/collections\/[^/]+$/.test(path))
      throw unsupported('Updating collection parameters (PATCH)');
    throw qdrantError(
      404,
      `Not found: ${request.method} ${path} is not a route of vector-api's Qdrant-compatible API (docs/qdrant.md)`,
    );
  }
}
