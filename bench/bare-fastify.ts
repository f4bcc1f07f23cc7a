// The baseline of bench/telegram-list.ts: a bare Fastify route answering a fixed JSON document
// (the same bytes as a Namazu first page). Usage: node --import tsx bench/bare-fastify.ts PORT FILE
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const [port, file] = process.argv.slice(2);
const payload = JSON.parse(readFileSync(file!, 'utf8')) as object;
const app = Fastify({ logger: false });
app.get('/v2/telegram', async () => payload);
await app.listen({ port: Number(port), host: '127.0.0.1' });
// Exit through process.exit on Ctrl-C, so that `node --cpu-prof` writes its profile.
process.on('SIGINT', () => process.exit(0));
