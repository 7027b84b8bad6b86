import type { OpenAPIObject, ResponseObject } from '@nestjs/swagger';
import { registerErrorCodes, invalidRequest } from '../errors/error-catalog';
import { RawHttpError } from '../errors/raw-http-error';
import { addErrorResponses, ERROR_BODY_SCHEMA } from './error-responses';
import type { DocumentedRoute } from './routes';

registerErrorCodes({ spec_widget_jammed: invalidRequest(409, { when: 'The widget jams.', fix: 'Unjam it.' }) });

function document(operation: Record<string, unknown>, schemas: Record<string, unknown> = {}): OpenAPIObject {
  return {
    openapi: '3.0.0',
    info: { title: 't', version: '1' },
    paths: { '/things/{id}': { post: { operationId: 'ThingsController_act', responses: {}, ...operation } } },
    components: { schemas: schemas as never, securitySchemes: { key: { type: 'http', scheme: 'bearer' } } },
  };
}

const route = (overrides: Partial<DocumentedRoute> = {}): Map<string, DocumentedRoute> =>
  new Map([
    [
      'ThingsController_act',
      {
        operationId: 'ThingsController_act',
        controller: class {} as never,
        methodName: 'act',
        errors: [],
        ownErrorBody: false,
        bodyType: undefined,
        queryType: undefined,
        ...overrides,
      },
    ],
  ]);

const responses = (doc: OpenAPIObject): Record<string, ResponseObject> =>
  doc.paths['/things/{id}']?.post?.responses as Record<string, ResponseObject>;
const codes = (r: ResponseObject | undefined): string[] =>
  [...(r?.description ?? '').matchAll(/`([a-z_]+)`/g)].map((m) => m[1] ?? '');

describe('addErrorResponses', () => {
  it('adds what the route has, with statuses from the catalogue and the error body', () => {
    const doc = document(
      {
        security: [{ key: [] }],
        parameters: [
          { in: 'path', name: 'id', required: true, schema: { type: 'string' } },
          { in: 'header', name: 'Idempotency-Key', required: false, schema: { type: 'string' } },
        ],
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Body' } } } },
      },
      { Body: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } } },
    );
    addErrorResponses(doc, route({ errors: ['spec_widget_jammed'] }), { key: ['invalid_api_key'] });
    const r = responses(doc);
    expect(Object.keys(r).sort()).toEqual(['400', '401', '404', '409', '413', '415', '422', '429', '500', '503']);
    expect(codes(r['401'])).toEqual(['authentication_required', 'invalid_api_key']);
    expect(codes(r['409'])).toEqual(['idempotency_key_in_use', 'spec_widget_jammed']);
    expect(codes(r['400'])).toEqual(
      expect.arrayContaining(['parameter_invalid', 'parameter_missing', 'parameter_unknown', 'invalid_json']),
    );
    for (const response of Object.values(r)) {
      expect(response.content?.['application/json']?.schema).toEqual({ $ref: `#/components/schemas/${ERROR_BODY_SCHEMA}` });
    }
    expect(r['429']?.headers).toHaveProperty('Retry-After');
    expect(r['401']?.headers).toHaveProperty('WWW-Authenticate');
    expect(doc.components?.schemas).toHaveProperty(ERROR_BODY_SCHEMA);
  });

  it('keeps a documented description, puts an overridden status where it is thrown, and lists each note', () => {
    const doc = document({ responses: { '404': { description: 'No such thing' } } });
    addErrorResponses(
      doc,
      route({
        errors: [
          { code: 'resource_missing', when: 'no such thing' },
          { code: 'resource_missing', status: 400, when: 'the body names no thing of yours' },
        ],
      }),
      {},
    );
    const r = responses(doc);
    expect(r['404']?.description).toBe('No such thing. Codes: `resource_missing` (no such thing).');
    expect(r['400']?.description).toBe('Codes: `resource_missing` (the body names no thing of yours).');
    expect(codes(r['500'])).toEqual(['internal_error']);
    expect(codes(r['503'])).toEqual(['service_unavailable']);
  });

  it('leaves the 4xx of a route with its own error body alone', () => {
    const doc = document({ responses: { '400': { description: '{ error: invalid_request }' } } });
    addErrorResponses(doc, route({ ownErrorBody: true, errors: ['parameter_invalid'] }), {});
    expect(responses(doc)['400']).toEqual({ description: '{ error: invalid_request }' });
    expect(Object.keys(responses(doc)).sort()).toEqual(['400', '500', '503']);
  });

  it('documents every status of a route that declares its own error body with that body, and the codes', () => {
    const body = { name: 'OtherErrorBody', schema: { type: 'object', required: ['status'] } };
    const doc = document({ parameters: [{ in: 'path', name: 'id', required: true, schema: { type: 'string' } }] });
    addErrorResponses(doc, route({ ownErrorBody: true, errorBody: body, errors: ['spec_widget_jammed'] }), {});
    const r = responses(doc);
    expect(Object.keys(r).sort()).toEqual(['400', '404', '409', '500', '503']);
    for (const status of Object.keys(r)) {
      expect(r[status]?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/OtherErrorBody' });
    }
    expect(codes(r['409'])).toEqual(['spec_widget_jammed']);
    expect(codes(r['500'])).toEqual(['internal_error']);
    expect(doc.components?.schemas?.OtherErrorBody).toEqual(body.schema);
    // one name, one schema
    const clash = document({});
    clash.components = { schemas: { OtherErrorBody: { type: 'string' } } };
    expect(() => addErrorResponses(clash, route({ errorBody: body }), {})).toThrow(/OtherErrorBody/);
  });

  it('puts each code of a route with its own error body and renderer under the status the renderer answers it with', () => {
    const body = { name: 'OtherErrorBody', schema: { type: 'object', required: ['status'] } };
    const doc = document({
      security: [{ key: [] }],
      parameters: [{ in: 'header', name: 'Idempotency-Key', required: false, schema: { type: 'string' } }],
    });
    // a standard whose clients retry every 409: only a request in flight keeps it
    const renderer = (e: { status: number; code: string }): RawHttpError =>
      new RawHttpError(e.code !== 'idempotency_key_in_use' && e.status >= 409 && e.status <= 422 ? 400 : e.status, {});
    addErrorResponses(doc, route({ ownErrorBody: true, errorBody: body, renderer, errors: ['spec_widget_jammed'] }), {
      key: ['invalid_api_key'],
    });
    const r = responses(doc);
    expect(Object.keys(r).sort()).toEqual(['400', '401', '409', '429', '500', '503']);
    expect(codes(r['400'])).toEqual(expect.arrayContaining(['idempotency_key_reused', 'spec_widget_jammed']));
    expect(codes(r['409'])).toEqual(['idempotency_key_in_use']);
    // without its own body, the renderer's statuses are not the document's business
    const plain = document({ parameters: [{ in: 'header', name: 'Idempotency-Key', schema: { type: 'string' } }] });
    addErrorResponses(plain, route({ renderer, errors: ['spec_widget_jammed'] }), {});
    expect(codes(responses(plain)['409'])).toEqual(['idempotency_key_in_use', 'spec_widget_jammed']);
  });

  it('stops the boot for a code no catalogue has, a scheme without its codes, or an error answer without codes', () => {
    expect(() => addErrorResponses(document({}), route({ errors: ['no_such_code'] }), {})).toThrow(/'no_such_code'/);
    expect(() => addErrorResponses(document({ security: [{ key: [] }] }), route(), {})).toThrow(/scheme key/);
    expect(() => addErrorResponses(document({ responses: { '418': { description: 'teapot' } } }), route(), {})).toThrow(
      /418 answer/,
    );
  });
});
