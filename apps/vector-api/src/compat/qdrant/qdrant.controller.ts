import { Authenticated, CredentialHeaders, CurrentPrincipal } from '@app/auth';
import { BodyLimit, RenderErrorsWith } from '@app/platform';
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
import { ApiBody, ApiExcludeController, ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { VectorConfig } from '../../config';
import { InsertAdmission } from '../../tables/insert-admission';
import { RawBody } from '../../tables/raw-body';
import type { VectorTokenPrincipal } from '../../tokens/vector-token.principal';
import { QdrantParamsDto } from './dto/qdrant.dto';
import { QdrantEnvelope } from './qdrant-envelope';
import { qdrantError, qdrantRouteError, unsupported } from './qdrant-error';
import { type PointRecord, QdrantService, type ScoredPoint, type UpdateResult } from './qdrant.service';

/** The version GET / reports: the official client (1.19) warns unless major matches and minor is within one. */
export const QDRANT_COMPAT_VERSION = '1.19.0';

const ERROR_BODY: SchemaObject = {
  type: 'object',
  required: ['status'],
  properties: {
    status: { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] },
    time: { type: 'number' },
  },
};

/** The envelope of a 200 answer around `result`. */
const envelope = (result: SchemaObject): SchemaObject => ({
  type: 'object',
  required: ['result', 'status', 'time'],
  properties: { result, status: { type: 'string', enum: ['ok'] }, time: { type: 'number', description: 'Seconds' } },
});

const ANY: SchemaObject = { type: 'object', additionalProperties: true };
const UPDATE_RESULT: SchemaObject = {
  type: 'object',
  properties: { operation_id: { type: 'integer' }, status: { type: 'string', enum: ['completed', 'acknowledged'] } },
};

/**
 * One route of the Qdrant-compatible API: 200 with the envelope, errors in Qdrant's body
 * (the platform's own errors too: RenderErrorsWith), documented under the `qdrant` tag.
 */
function QdrantRoute(summary: string, result: SchemaObject, body?: SchemaObject): MethodDecorator {
  return applyDecorators(
    HttpCode(200),
    RenderErrorsWith(qdrantRouteError),
    ApiOperation({ summary }),
    ApiOkResponse({ schema: envelope(result) }),
    ApiResponse({
      status: 400,
      description: 'Bad request (Qdrant body): a malformed request or an unsupported feature, named',
      schema: ERROR_BODY,
    }),
    ApiResponse({ status: 401, description: 'Missing or invalid api-key / Bearer token', schema: ERROR_BODY }),
    ApiResponse({ status: 404, description: 'No such collection in the project (or no such point)', schema: ERROR_BODY }),
    ApiResponse({ status: 413, description: 'Body over the route’s limit', schema: ERROR_BODY }),
    ApiResponse({ status: 429, description: 'Rate limit exceeded (Retry-After)', schema: ERROR_BODY }),
    ...(body === undefined ? [] : [ApiBody({ schema: body })]),
  );
}

const wait = (q: QdrantParamsDto): boolean => q.wait === 'true';

/** `GET /`: who answers, as Qdrant's root does (the official client checks the version on construction). */
@ApiTags('qdrant')
@Controller()
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
  @QdrantRoute('Create a collection (an hnsw table): vectors {size, distance}', { type: 'boolean' }, ANY)
  create(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() _q: QdrantParamsDto,
    @RawBody() body: unknown,
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
    ANY,
  )
  upsert(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() q: QdrantParamsDto,
    @RawBody() body: unknown,
  ): Promise<UpdateResult> {
    return this.qdrant.upsert(caller, c, body, wait(q));
  }

  @Post(':c/points')
  @QdrantRoute('Retrieve points by id', { type: 'array', items: ANY }, ANY)
  retrieve(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() _q: QdrantParamsDto,
    @RawBody() body: unknown,
  ): Promise<PointRecord[]> {
    return this.qdrant.retrieve(caller, c, body);
  }

  @Get(':c/points/:id')
  @QdrantRoute('A point by id (404 when missing)', ANY)
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
  @QdrantRoute('Query: nearest points of a vector (or a listing without query)', ANY, ANY)
  query(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() _q: QdrantParamsDto,
    @RawBody() body: unknown,
  ): Promise<{ points: Array<ScoredPoint | PointRecord> }> {
    return this.qdrant.query(caller, c, body);
  }

  @Post(':c/points/query/batch')
  @BodyLimit((config: VectorConfig) => config.VECTOR_QUERY_BODY_LIMIT_BYTES)
  @QdrantRoute('A batch of queries ({searches})', { type: 'array', items: ANY }, ANY)
  queryBatch(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() _q: QdrantParamsDto,
    @RawBody() body: unknown,
  ): Promise<Array<{ points: Array<ScoredPoint | PointRecord> }>> {
    return this.qdrant.queryBatch(caller, c, body);
  }

  @Post(':c/points/search')
  @BodyLimit((config: VectorConfig) => config.VECTOR_QUERY_BODY_LIMIT_BYTES)
  @QdrantRoute('Search (legacy): nearest points of a vector', { type: 'array', items: ANY }, ANY)
  search(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() _q: QdrantParamsDto,
    @RawBody() body: unknown,
  ): Promise<ScoredPoint[]> {
    return this.qdrant.search(caller, c, body);
  }

  @Post(':c/points/search/batch')
  @BodyLimit((config: VectorConfig) => config.VECTOR_QUERY_BODY_LIMIT_BYTES)
  @QdrantRoute('A batch of searches ({searches})', { type: 'array', items: { type: 'array', items: ANY } }, ANY)
  searchBatch(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() _q: QdrantParamsDto,
    @RawBody() body: unknown,
  ): Promise<ScoredPoint[][]> {
    return this.qdrant.searchBatch(caller, c, body);
  }

  @Post(':c/points/delete')
  @QdrantRoute('Delete points by id ({points}) or by filter', UPDATE_RESULT, ANY)
  delete(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() q: QdrantParamsDto,
    @RawBody() body: unknown,
  ): Promise<UpdateResult> {
    return this.qdrant.delete(caller, c, body, wait(q));
  }

  @Post(':c/points/scroll')
  @QdrantRoute('Scroll: points in id byte order, a page at a time (next_page_offset)', ANY, ANY)
  scroll(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() _q: QdrantParamsDto,
    @RawBody() body: unknown,
  ): Promise<{ points: PointRecord[]; next_page_offset: number | string | null }> {
    return this.qdrant.scroll(caller, c, body);
  }

  @Post(':c/points/count')
  @QdrantRoute(
    'Count points, all or matching a filter (always exact)',
    { type: 'object', properties: { count: { type: 'integer' } } },
    ANY,
  )
  count(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() _q: QdrantParamsDto,
    @RawBody() body: unknown,
  ): Promise<{ count: number }> {
    return this.qdrant.count(caller, c, body);
  }

  @Post(':c/points/payload')
  @QdrantRoute('Set payload keys (merge top-level keys) of points by id or filter', UPDATE_RESULT, ANY)
  setPayload(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() q: QdrantParamsDto,
    @RawBody() body: unknown,
  ): Promise<UpdateResult> {
    return this.qdrant.setPayload(caller, c, body, wait(q), false);
  }

  @Put(':c/points/payload')
  @QdrantRoute('Overwrite the payload of points by id or filter', UPDATE_RESULT, ANY)
  overwritePayload(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() q: QdrantParamsDto,
    @RawBody() body: unknown,
  ): Promise<UpdateResult> {
    return this.qdrant.setPayload(caller, c, body, wait(q), true);
  }

  @Post(':c/points/payload/delete')
  @QdrantRoute('Delete payload keys of points by id or filter', UPDATE_RESULT, ANY)
  deletePayload(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() q: QdrantParamsDto,
    @RawBody() body: unknown,
  ): Promise<UpdateResult> {
    return this.qdrant.deletePayload(caller, c, body, wait(q));
  }

  @Post(':c/points/payload/clear')
  @QdrantRoute('Clear the payload of points by id or filter', UPDATE_RESULT, ANY)
  clearPayload(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() q: QdrantParamsDto,
    @RawBody() body: unknown,
  ): Promise<UpdateResult> {
    return this.qdrant.clearPayload(caller, c, body, wait(q));
  }

  @Put(':c/index')
  @QdrantRoute('Create a payload index: accepted (filters need no index here)', UPDATE_RESULT, ANY)
  createIndex(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('c') c: string,
    @Query() q: QdrantParamsDto,
    @RawBody() body: unknown,
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
