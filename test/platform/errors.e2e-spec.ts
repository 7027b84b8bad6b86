import { startTestApp, type TestApp } from '../support/app';
import { probeService } from './probe.service';

type Probe = TestApp<InstanceType<typeof probeService.configClass>>;

interface ErrorJson {
  error: { type: string; code: string; message: string; param?: string; request_id: string };
}

describe('platform error body (contract: Errors)', () => {
  let t: Probe;
  beforeAll(async () => {
    t = await startTestApp(probeService);
  });
  afterAll(async () => {
    await t.close();
  });

  const expectContractError = (
    res: { statusCode: number; headers: Record<string, unknown>; json: () => unknown },
    status: number,
  ) => {
    expect(res.statusCode).toBe(status);
    const body = res.json() as ErrorJson;
    expect(res.headers['request-id']).toMatch(/^req_[0-9a-f]{24}$/);
    expect(body.error.request_id).toBe(res.headers['request-id']);
    expect(typeof body.error.message).toBe('string');
    expect(body.error.code).toMatch(/^[a-z][a-z0-9_]*$/);
    return body.error;
  };

  it('answers an unknown route with 404 route_not_found', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/no/such/route?x=1' });
    const error = expectContractError(res, 404);
    expect(error).toMatchObject({ type: 'invalid_request_error', code: 'route_not_found' });
    expect(error.message).toBe('Unrecognized request URL (GET: /no/such/route).');
  });

  it('answers malformed JSON with 400 invalid_json, never 500', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/probe/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": "a", amount: }',
    });
    const error = expectContractError(res, 400);
    expect(error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_json' });
  });

  it('answers an empty JSON body with 400 invalid_json', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/probe/echo',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(expectContractError(res, 400).code).toBe('invalid_json');
  });

  it('answers a JSON body that is not an object with 400 body_invalid', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/probe/echo', payload: [1, 2] });
    expect(expectContractError(res, 400).code).toBe('body_invalid');
  });

  it('names the offending param for a wrong type', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/probe/echo', payload: { name: 'a', amount: 'ten' } });
    const error = expectContractError(res, 400);
    expect(error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid', param: 'amount' });
    expect(error.message).toMatch(/^amount /);
  });

  it('names a missing required param', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/probe/echo', payload: { amount: 5 } });
    expect(expectContractError(res, 400)).toMatchObject({ code: 'parameter_missing', param: 'name' });
  });

  it('rejects unknown fields naming them', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/probe/echo', payload: { name: 'a', amount: 1, colour: 'red' } });
    expect(expectContractError(res, 400)).toMatchObject({ code: 'parameter_unknown', param: 'colour' });
  });

  it('names nested params with their index', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/probe/echo',
      payload: { name: 'a', amount: 1, lines: [{ quantity: 1 }, { quantity: 0 }] },
    });
    expect(expectContractError(res, 400)).toMatchObject({ code: 'parameter_invalid', param: 'lines[1].quantity' });
  });

  it('validates query parameters', async () => {
    const ok = await t.app.inject({ method: 'GET', url: '/probe/items?limit=100' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ limit: 100 });
    const res = await t.app.inject({ method: 'GET', url: '/probe/items?limit=101' });
    expect(expectContractError(res, 400)).toMatchObject({ code: 'parameter_invalid', param: 'limit' });
  });

  it('accepts a valid body and returns 2xx with a Request-Id', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/probe/echo', payload: { name: 'ok', amount: 3 } });
    expect(res.statusCode).toBe(201);
    expect(res.headers['request-id']).toMatch(/^req_/);
    expect(res.json()).toEqual({ name: 'ok', amount: 3 });
  });

  it('maps a typed domain error through the catalog', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/probe/missing' });
    expect(expectContractError(res, 404)).toEqual({
      type: 'invalid_request_error',
      code: 'resource_missing',
      message: "No such offer: 'offer_x'",
      param: 'id',
      request_id: res.headers['request-id'],
    });
  });

  it('answers an unexpected error with a generic 500, logged with the request id, no internals leaked', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/probe/boom' });
    const error = expectContractError(res, 500);
    expect(error.type).toBe('api_error');
    expect(error.code).toBe('internal_error');
    expect(res.body).not.toMatch(/hunter2|postgres:|exploded|at .*\.ts/);
    const line = t.logs.find((l) => l['level'] === 50 && l['reqId'] === res.headers['request-id']);
    expect(line).toBeDefined();
    expect(JSON.stringify(line)).toContain('exploded');
  });

  it('rejects a body over the size limit with 413', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/probe/echo',
      payload: { name: 'x', amount: 1, pad: 'x'.repeat(t.config.BODY_LIMIT_BYTES) },
    });
    expect(expectContractError(res, 413).code).toBe('body_too_large');
  });
});
