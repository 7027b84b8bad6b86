import { type DynamicModule, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger as PinoLogger } from 'pino';
import { ConfigError, loadConfig } from './config/load-config';
import { DEV_ADMIN_API_KEY, type PlatformConfig } from './config/platform-config';
import { setupOpenApi, type OpenApiOptions } from './docs/openapi';
import { DomainError } from './errors/domain-error';
import { type ErrorCatalog, registerErrorCodes } from './errors/error-catalog';
import { forRoute, renderError, sendError } from './errors/exception-filter';
import { clientErrorHandler, connectHandler } from './http/client-errors';
import { parseJsonBody } from './http/json-body';
import { newRequestId, notedRateLimit, runWithRequestId } from './http/request-context';
import { installRoutePolicies, wantsRawJsonBody } from './http/route-policies';
import { PlatformValidationPipe } from './http/validation';
import { createRootLogger, PinoNestLogger } from './logging/logger';
import { MetricsService, UNMATCHED_ROUTE } from './metrics/metrics.service';
import { setHttpRoute } from './telemetry/trace-context';
import { shutdownTracing, tracingOn } from './telemetry/tracing';

export interface ServiceDefinition<C extends PlatformConfig> {
  /** The service's name, as in logs, metrics and /admin/v1/info. */
  readonly name: string;
  readonly configClass: new () => C;
  readonly module: (config: C) => DynamicModule;
  readonly openApi: OpenApiOptions;
  /** The app's own error codes, registered into the platform's catalogue at boot. */
  readonly errors?: ErrorCatalog;
  /** Longest path parameter, in characters after decoding (Fastify's default: 100). */
  readonly maxParamLength?: number;
}

/** Paths a ROLE=worker process answers; everything else is 404 there. */
const OPS_PATHS = /^\/(health\/(live|ready)|metrics)(\?|$)/;

function installHooks(fastify: FastifyInstance, config: PlatformConfig, metrics: MetricsService): void {
  // While tracing is on, the request's server span is named after its route template.
  if (tracingOn()) {
    fastify.addHook('onRequest', (request, _reply, done) => {
      setHttpRoute(request.routeOptions.url);
      done();
    });
  }
  // Every response carries Request-Id; log lines written while handling it carry it too.
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('Request-Id', request.id);
    runWithRequestId(request.id, done, request.raw);
  });
  // Node's own 400 for a missing Host (requireHostHeader) has an empty body: it is answered here.
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (request.headers.host !== undefined || request.raw.httpVersion !== '1.1') return done();
    done(new DomainError('request_malformed', 'An HTTP/1.1 request must have a Host header.'));
  });
  // While draining (SIGTERM), a request that still arrives on a kept-alive connection gets
  // the contract's 503 (Fastify's own return503OnClosing body is not) and the connection closes.
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    void reply.header('Connection', 'close');
    done(
      new DomainError('service_unavailable', 'This instance is shutting down; retry the request.', {
        headers: { 'Retry-After': '1' },
      }),
    );
  });
  if (!config.servesApi) {
    fastify.addHook('onRequest', (request, _reply, done) => {
      if (OPS_PATHS.test(request.url)) return done();
      done(new DomainError('route_not_found', `This process runs with ROLE=worker and serves only health and metrics.`));
    });
  }
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    metrics.observeHttp(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    // every 429 is a limit's refusal; the code that refused named it (noteRateLimit)
    if (reply.statusCode === 429) metrics.rateLimited(notedRateLimit(request.raw) ?? 'other');
    done();
  });
}

const routerErrors = new Logger('Errors');

/**
 * Errors Fastify's router raises before any hook runs (a malformed percent-encoding in the
 * path, a path parameter longer than maxParamLength): rendered in the contract's body with
 * a Request-Id, instead of Fastify's own body without one.
 */
function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  void reply.header('Request-Id', request.id);
  sendError(reply, forRoute(request, renderError(error, request.id, request.method, request.url, routerErrors)));
}

/** Builds a fully configured, initialised app (not yet listening). Used by main.ts and tests. */
export async function createServiceApp<C extends PlatformConfig>(
  definition: ServiceDefinition<C>,
  config: C,
  rootLogger?: PinoLogger,
): Promise<NestFastifyApplication> {
  if (definition.errors) registerErrorCodes(definition.errors);
  const pino = rootLogger ?? createRootLogger({ service: definition.name, ...config.logOptions });
  const adapter = new FastifyAdapter({
    loggerInstance: pino,
    genReqId: () => newRequestId(),
    requestIdHeader: false,
    bodyLimit: config.BODY_LIMIT_BYTES,
    ...(definition.maxParamLength === undefined ? {} : { routerOptions: { maxParamLength: definition.maxParamLength } }),
    trustProxy: config.trustProxy,
    forceCloseConnections: 'idle',
    frameworkErrors,
    // installHooks answers requests that arrive while closing, in the contract's error body
    return503OnClosing: false,
    // what Node's HTTP parser refuses (431, unknown methods, bad framing) in the contract's body
    clientErrorHandler,
    http: { requireHostHeader: false },
  });
  const app = await NestFactory.create<NestFastifyApplication>(definition.module(config), adapter, {
    logger: new PinoNestLogger(pino),
    abortOnError: false,
  });
  try {
    await configureApp(app, definition, config);
  } catch (err) {
    // a boot that fails here (a route policy, the OpenAPI document) must not leave pools and timers open
    await app.close().catch(() => undefined);
    throw err;
  }
  return app;
}

async function configureApp<C extends PlatformConfig>(
  app: NestFastifyApplication,
  definition: ServiceDefinition<C>,
  config: C,
): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  // Bodies are JSON (and the form of a @FormBody route, POST /oauth/token): Fastify's
  // built-in text/plain parser would hand a string to JSON routes (a 400 at best); without
  // it, 415. Nest's form parser stays for @FormBody routes: every other route refuses a
  // form (any body but JSON) with 415 before it is read (installRoutePolicies).
  fastify.removeContentTypeParser('text/plain');
  // The platform's JSON parser (duplicate and prototype keys refused). Registered without a
  // parser-level limit, so a route's own @BodyLimit applies, BODY_LIMIT_BYTES otherwise.
  app.useBodyParser('application/json', {}, (request, body, done) => {
    // a @RawJsonBody() route parses its body itself
    if (wantsRawJsonBody(request)) {
      done(null, body);
      return;
    }
    try {
      done(null, parseJsonBody(body));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  fastify.server.on('connect', connectHandler);
  installHooks(fastify, config, app.get(MetricsService));
  const checkRoutePolicies = installRoutePolicies(app, config);
  app.useGlobalPipes(new PlatformValidationPipe());
  setupOpenApi(app, definition.openApi, config);
  await app.init();
  checkRoutePolicies();
  await app.getHttpAdapter().getInstance().ready();
}

/**
 * main.ts of every service: validate config (exit 1 naming the bad variable), build the
 * app, listen, and on SIGINT/SIGTERM drain HTTP, close workers and pools, exit 0.
 */
export async function runService<C extends PlatformConfig>(definition: ServiceDefinition<C>): Promise<void> {
  let config: C;
  try {
    config = loadConfig(definition.configClass);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${definition.name}: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const pino = createRootLogger({ service: definition.name, ...config.logOptions });
  if (config.ADMIN_API_KEY === DEV_ADMIN_API_KEY) {
    pino.warn(`ADMIN_API_KEY is the development default '${DEV_ADMIN_API_KEY}': never use it outside development`);
  }
  const app = await createServiceApp(definition, config, pino);
  await app.listen({ port: config.port, host: config.HOST });
  pino.info({ port: config.port, role: config.ROLE }, `${definition.name} listening on http://${config.HOST}:${config.port}`);

  let closing = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (closing) return;
    closing = true;
    pino.info({ signal }, `${definition.name} shutting down: draining requests and jobs`);
    const force = setTimeout(() => {
      pino.error(`${definition.name} did not stop within ${config.SHUTDOWN_TIMEOUT_MS} ms; exiting`);
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    force.unref();
    app
      .close()
      // the spans of the last requests and jobs are flushed once everything has stopped
      .then(() => shutdownTracing().catch((err: unknown) => pino.warn({ err }, 'tracing did not flush its last spans')))
      .then(() => {
        pino.info(`${definition.name} stopped`);
        process.exit(0);
      })
      .catch((err: unknown) => {
        pino.error({ err }, 'error during shutdown');
        process.exit(1);
      });
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
