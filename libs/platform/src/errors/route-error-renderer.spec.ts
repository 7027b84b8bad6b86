import type { FastifyRequest } from 'fastify';
import { RawHttpError } from './raw-http-error';
import { renderErrorsUnder, routeErrorRenderer } from './route-error-renderer';

const own = (): RawHttpError => new RawHttpError(400, { own: true });
const other = (): RawHttpError => new RawHttpError(400, { other: true });

function request(server: object, url: string, config?: Record<string, unknown>): FastifyRequest {
  return { server, url, routeOptions: config === undefined ? undefined : { config } } as unknown as FastifyRequest;
}

describe('routeErrorRenderer', () => {
  it("takes the route's renderer first, else the one of the prefix the path is under, on that server only", () => {
    const server = {};
    renderErrorsUnder(server, '/things', own);
    const child = Object.create(server) as object; // a plugin's instance (Fastify's encapsulation)
    expect(routeErrorRenderer(request(server, '/things/%zz?x=1'))).toBe(own);
    expect(routeErrorRenderer(request(child, '/things'))).toBe(own);
    expect(routeErrorRenderer(request(server, '/thingsandmore'))).toBeUndefined();
    expect(routeErrorRenderer(request(server, '/other/things'))).toBeUndefined();
    expect(routeErrorRenderer(request({}, '/things/x'))).toBeUndefined();
    expect(routeErrorRenderer(request(server, '/things/x', { platformErrorRenderer: other }))).toBe(other);
  });
});
