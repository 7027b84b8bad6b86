/**
 * An in-process OTLP/HTTP trace receiver (OTEL_EXPORTER_OTLP_PROTOCOL=http/json): accepts
 * POST /v1/traces on 127.0.0.1 and keeps every span, flattened. Any other path is recorded
 * too (`otherPaths`), so a test can see that no metrics or logs were posted.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** OTLP's span kinds (SPAN_KIND_*). */
export const SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 } as const;

export type AttributeValue = string | number | boolean;

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly scope: string;
  readonly service: string;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
}

interface OtlpAnyValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}
interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: Array<{
      scope?: { name?: string };
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: OtlpKeyValue[];
      }>;
    }>;
  }>;
}

function valueOf(v: OtlpAnyValue): AttributeValue {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  return JSON.stringify(v);
}

function attributesOf(list: readonly OtlpKeyValue[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly otherPaths: string[] = [];
  /** Raw request bodies, to search for values that must never be exported. */
  readonly bodies: string[] = [];
  private readonly server: Server;

  private constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          this.otherPaths.push(`${req.method ?? ''} ${req.url ?? ''}`);
          res.writeHead(404).end();
          return;
        }
        this.bodies.push(body);
        const data = JSON.parse(body) as OtlpExport;
        for (const rs of data.resourceSpans ?? []) {
          const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              this.spans.push({
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? '',
                name: s.name,
                kind: s.kind,
                scope: ss.scope?.name ?? '',
                service,
                attributes: attributesOf(s.attributes),
              });
            }
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
  }

  static async start(port = 0): Promise<OtlpReceiver> {
    const r = new OtlpReceiver();
    await new Promise<void>((resolve, reject) => {
      r.server.once('error', reject);
      r.server.listen(port, '127.0.0.1', resolve);
    });
    return r;
  }

  /** The endpoint for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends /v1/traces). */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * The chain of spans from `span` up to its trace's root, `span` first; throws naming the
 * first parent that is missing (a broken link).
 */
export function ancestry(span: ReceivedSpan, trace: readonly ReceivedSpan[]): ReceivedSpan[] {
  const chain = [span];
  let current = span;
  while (current.parentSpanId !== '') {
    const parent = trace.find((s) => s.spanId === current.parentSpanId);
    if (parent === undefined) {
      throw new Error(`span '${current.name}' names parent ${current.parentSpanId}, which is not in trace ${span.traceId}`);
    }
    chain.push(parent);
    current = parent;
  }
  return chain;
}
