import { parentPort } from 'node:worker_threads';
import { parseInsertBody } from './parse-insert';
import { type ParseReply, type ParseRequest, transferablesOf } from './parse-protocol';

/**
 * An insert parse worker (ParsePool, parse-pool.ts): parses and checks one insert or upsert
 * body per message, off the event loop that serves queries, and sends back the rows in
 * compact form or the 400. Its garbage (the parsed body) is collected on this thread's heap.
 */
const port = parentPort;
if (!port) throw new Error('parse.worker runs in a worker thread');

port.on('message', (request: ParseRequest) => {
  let reply: ParseReply;
  let transfer: ArrayBuffer[] = [];
  try {
    const outcome = parseInsertBody(request.body, request.options);
    reply = { id: request.id, outcome };
    transfer = transferablesOf(outcome);
  } catch (err) {
    reply = { id: request.id, failed: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  port.postMessage(reply, transfer);
});
