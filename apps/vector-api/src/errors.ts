import { DomainError, type ErrorCatalog, invalidRequest, type PlatformErrorCode, type PlatformErrorNotes } from '@app/platform';

/** vector-api's own error codes, each with its docs: docs/errors.md is generated from them (`npm run docs:errors`). */
export const VECTOR_ERRORS = {
  /** An embedding's length differs from its table's dimension. */
  dimension_mismatch: invalidRequest(400, {
    when: "`POST /v1/tables/{table}/insert` with embeddings whose length is not the table's dimension (`param` names the first, `rows[i].embedding`; `ids` lists the offending row ids, at most 100; nothing is inserted), or `POST /v1/tables/{table}/query` with a `vector` of another length (`param: vector`). A query vector longer than 4096, the largest dimension, is refused before the table is looked up.",
    fix: "Send embeddings of the table's `dimension` (`GET /v1/tables/{table}`).",
    fields: ['ids'],
  }),
  /** A query filter over one of the size limits of docs/vector.md ("Filters"); `param` says where. */
  filter_too_complex: invalidRequest(400, {
    when: '`POST /v1/tables/{table}/query`, `POST …/count` or `DELETE …/vectors` with a `filter` over one of its size limits (keys, values per array and in all, string length, nesting, logical depth of `$and` / `$or` over 8, JSON size: docs/vector.md, "Filters"); `param` names the offending part (`filter.tags.$in`), or `filter` for a total. Checked before anything else reads the filter.',
    fix: 'Keep the filter within the limits: fewer keys and values, shorter strings, less nesting.',
  }),
  /** A per-table route on an instance of another partition than the table's (VECTOR_PARTITION, docs/scaling.md). */
  table_not_in_partition: invalidRequest(421, {
    when: "A route of one table (`GET /v1/tables/{table}`, `…/insert`, `…/query`, `DELETE …/vectors`) reached a vector-api instance started with `VECTOR_PARTITION` whose partition does not hold that table; the message names the table, this instance's partition and the table's (`param: table`). Checked before the table is looked up, so it is also the answer for a table that does not exist. Creating, listing and deleting tables work on every instance.",
    fix: "Send the table's requests through the proxy of docs/scaling.md, whose `split_clients` routes each table to its partition's group; if it answered this, its number of groups or its `split_clients` lines differ from the instances' `VECTOR_PARTITION`: generate them again for the same n.",
  }),
  /** A row's metadata over VECTOR_METADATA_MAX_BYTES or VECTOR_METADATA_MAX_KEYS. */
  metadata_too_large: invalidRequest(400, {
    when: "`POST /v1/tables/{table}/insert` or `…/upsert` with a row whose metadata is larger than `VECTOR_METADATA_MAX_BYTES` (default 40,960 bytes, as serialized JSON) or has more keys than `VECTOR_METADATA_MAX_KEYS` (default 64, counted over the whole tree); `param` names the first such row (`rows[i].metadata`), `ids` lists them all (at most 100), nothing is written. `PATCH /v1/tables/{table}/vectors/{id}` whose merged metadata is over either limit (`param: metadata`). The message names the limit and the row's size.",
    fix: 'Keep large text out of metadata (store it elsewhere and keep its key), or ask the operator to raise the setting the message names.',
    fields: ['ids'],
  }),
  /** A delete by filter whose filter matches every possible row by its form. */
  filter_matches_all: invalidRequest(400, {
    when: '`DELETE /v1/tables/{table}/vectors` with a `filter` that matches any possible row by its form, whatever rows the table holds now: `{}`, an `$and` of such filters, an `$or` with such an alternative, `{"$nin": []}`, or an `$or` of a condition and its complement on one field (`$exists: true` / `$exists: false`, `k: v` / `$ne: v`, `$in` / `$nin` of the same values); `param: filter`. Nothing is deleted.',
    fix: 'To remove every row, delete the table (`DELETE /v1/tables/{table}`) and create it again, or delete by `ids` (`GET /v1/tables/{table}/vectors` lists them).',
  }),
  /** A project already has VECTOR_MAX_TABLES_PER_PROJECT tables. */
  table_limit_reached: invalidRequest(409, {
    when: '`POST /v1/tables` by a project that already has `VECTOR_MAX_TABLES_PER_PROJECT` tables (default 1,000); the message names the limit. Checked under a lock of the project, so concurrent creates never overshoot it.',
    fix: 'Delete tables the project no longer uses (`DELETE /v1/tables/{table}`), or ask the operator to raise `VECTOR_MAX_TABLES_PER_PROJECT`.',
  }),
  /** A write would take the project past VECTOR_MAX_FLOATS_PER_PROJECT stored floats. */
  project_capacity_reached: invalidRequest(409, {
    when: '`POST /v1/tables/{table}/insert` or `…/upsert` whose new rows would take the project past `VECTOR_MAX_FLOATS_PER_PROJECT` stored floats (rows × dimension over all its tables, default 256,000,000: 1 GiB of float32); an upsert counts only the rows it adds, not those it replaces. The message names the limit, what the project stores and what the write adds; nothing is written.',
    fix: 'Delete rows or tables the project no longer needs (deletes free their floats at once), or ask the operator to raise `VECTOR_MAX_FLOATS_PER_PROJECT`.',
  }),
  /** A query or batch answer whose estimated size passes VECTOR_MAX_RESPONSE_BYTES (issue 31, "Bounded answers"). */
  response_too_large: invalidRequest(400, {
    when: '`POST /v1/tables/{table}/query` (one query or a batch) whose answer, estimated from the stored sizes of its actual hits (ids, metadata as JSON, embeddings when `include_values`), would pass `VECTOR_MAX_RESPONSE_BYTES` (default 32 MiB). Checked after the search and before the answer is built; nothing is sent but the error. The message gives the estimate and what to lower; `param` is `include_values` when the embeddings are most of it, `queries` for a batch, else `n`.',
    fix: 'Lower `n`, leave out `include_values` (or `include_metadata: false` when the metadata is large), or send fewer queries per batch; page through rows with `GET /v1/tables/{table}/vectors` and `POST …/fetch` instead.',
  }),
  /** A project already has as many working tokens as it may. */
  token_limit_reached: invalidRequest(409, {
    when: '`POST /v1/tokens` by a project that already has 100 tokens that work (not revoked). The rate limit counts per token, so the tokens a project makes itself are bounded (the operator, through `/admin/v1`, is not). Counted under a lock of the project, so concurrent creates never overshoot it.',
    fix: 'Revoke tokens the project no longer uses (`DELETE /v1/tokens/{id}`), then create the new one.',
  }),
  /** A project's token asked to revoke itself. */
  token_in_use: invalidRequest(409, {
    when: '`DELETE /v1/tokens/{id}` naming the token that makes the request (`param: id`): a token cannot revoke itself.',
    fix: 'Revoke it with another token of the project (create one with `POST /v1/tokens`), or through the operator (`DELETE /admin/v1/tokens/{id}`).',
  }),
  /** A route of a table this instance has not loaded yet after its start (decision 189). */
  table_loading: {
    status: 503,
    type: 'api_error',
    when: "A route of one table's rows (`…/query`, `…/insert`, `…/upsert`, `…/fetch`, `…/count`, `GET …/vectors`, `PATCH`/`DELETE …/vectors`) on a vector-api instance that has just started and has not yet loaded that table into memory (it loads its tables in the background after opening its port, most recently queried first; `GET /health/ready` is 503 until every table is loaded). `Retry-After` estimates when the table will be loaded (1–30 s); asking moves the table to the front of the queue; `param: table`. Nothing was written. Listing, creating, describing (`GET /v1/tables/{table}`) and deleting tables answer at once.",
    fix: 'Retry after `Retry-After` seconds (a refused write changed nothing: send it again as it was); behind a load balancer, send traffic only to instances whose `GET /health/ready` is 200.',
  },
} as const satisfies ErrorCatalog;

export type VectorErrorCode = keyof typeof VECTOR_ERRORS;

/** The platform's codes as vector-api raises them on its own routes (docs only: docs/errors.md). */
export const VECTOR_PLATFORM_ERROR_NOTES = {
  parameter_invalid: {
    when: "`POST /v1/tables/{table}/insert` with a number in an embedding that is not a finite float32 (|x| ≤ 3.4028235e38), invalid metadata, or an id twice in the batch: `param` names the first offending row's field, `ids` lists the offending row ids (at most 100), nothing is inserted. `POST /v1/tables/{table}/query` with a `vector` (or a batch's `queries[i].vector`) holding a number that is not a finite float32, or an invalid `filter`; `PATCH …/vectors/{id}` with such an `embedding`. `GET /v1/tables` with a `starting_after` that is not a table name.",
    fix: 'Correct the rows `ids` lists (or the field `param` names) and send the whole batch again.',
    fields: ['ids'],
  },
  resource_missing: {
    status: 400,
    when: "400, not 404, when `GET /admin/v1/projects`' `starting_after` names no project (`param: starting_after`). An id in the path that names nothing is 404.",
    fix: 'Pass the id of the last project of the previous page, as the list returned it.',
  },
  resource_already_exists: {
    when: '`POST /v1/tables` with a `name` already taken (`param: name`); `POST /v1/tables/{table}/insert` with ids already in the table (`param: rows`; `ids` lists them, at most 100; nothing is inserted).',
    fix: 'Choose another table name; insert only new ids (delete the old rows first to replace them).',
    fields: ['ids'],
  },
  parameter_unknown: {
    when: 'A `/v1` body, or an insert row, with more keys than the route has fields: answered with the first unknown key before the body is validated.',
    fix: 'Send only the fields the route takes.',
  },
} as const satisfies PlatformErrorNotes;

/** A DomainError with one of vector-api's codes or the platform's. */
export class VectorError extends DomainError<VectorErrorCode | PlatformErrorCode> {}
