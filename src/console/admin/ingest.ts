import type { FastifyRequest } from 'fastify';
import { ingestDepsOf, type AppContext } from '../../context.ts';
import type { App } from '../../http/surface.ts';
import { ingestTelegram } from '../../telegrams/ingest.ts';
import { sendLivePage } from '../live-frame.ts';
import { adminPaths } from '../paths.ts';
import { admitVisit } from '../visit.ts';
import { adminGate } from './gate.ts';
import { adminMessages } from './messages.ts';
import { renderIngestPage } from './pages.ts';

/** Room for the multipart framing and the CSRF field around a telegram of the ingest limit. */
const MULTIPART_OVERHEAD = 16 * 1024;

type IngestResult = Parameters<typeof renderIngestPage>[0]['result'];

/** The fields of a multipart/form-data body, or null when it is not one. */
async function multipartForm(request: FastifyRequest): Promise<FormData | null> {
  const type = request.headers['content-type'];
  if (!Buffer.isBuffer(request.body) || typeof type !== 'string' || !type.startsWith('multipart/form-data')) {
    return null;
  }
  try {
    return await new Response(request.body, { headers: { 'content-type': type } }).formData();
  } catch {
    return null;
  }
}

/** Ingest a telegram file through the one ingest pipeline (docs/console-live.md "Administration"). */
export function registerIngestPage(area: App, ctx: AppContext): void {
  const ingestDeps = ingestDepsOf(ctx, 'console');
  const bodyLimit = ctx.config.maxTelegramBytes + MULTIPART_OVERHEAD;
  // The ingest form's file arrives as multipart/form-data: kept as bytes, read with the standard
  // FormData parser, under the ingest body limit of POST /admin/v1/telegrams.
  area.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit }, (_request, body, done) =>
    done(null, body),
  );
  // The file's form is checked before its body is read (docs/security.md "Credentials before
  // bodies"): the administrator's session, and the CSRF token, which the form carries in its
  // action's query for that reason. Anyone else is answered at once and holds no upload slot.
  const beforeBody = adminGate(ctx, 'query');

  area.get(adminPaths.ingest, async (request, reply) => {
    const { visit } = request;
    const page = renderIngestPage({
      lang: visit.lang,
      header: visit.header('admin', adminPaths.status),
      csrf: visit.csrf,
    });
    return sendLivePage(reply, 200, page);
  });

  area.post(
    adminPaths.ingest,
    {
      bodyLimit,
      onRequest: async (request, reply) => {
        if (!(await admitVisit(ctx, beforeBody, request, reply))) return reply;
      },
    },
    async (request, reply) => {
      const { visit } = request;
      const text = adminMessages[visit.lang];
      const header = visit.header('admin', adminPaths.status);
      const show = (status: number, result: IngestResult) =>
        sendLivePage(reply, status, renderIngestPage({ lang: visit.lang, header, csrf: visit.csrf, result }));
      const form = await multipartForm(request);
      const file = form?.get('telegram');
      if (!(file instanceof File) || file.size === 0)
        return show(400, { kind: 'error', message: text.noFile });
      if (file.size > ctx.config.maxTelegramBytes) {
        ctx.metrics.telegramsTooLarge.inc({ path: 'console' });
        request.log.warn({ bytes: file.size }, 'telegram refused: larger than the limit');
        return show(413, { kind: 'error', message: text.tooLarge });
      }
      const deps = { ...ingestDeps, log: request.log };
      const outcome = await ingestTelegram(deps, Buffer.from(await file.arrayBuffer()), {
        receivedTime: ctx.clock.now(),
        fileName: file.name,
      });
      if (!outcome.ok) return show(400, { kind: 'error', message: outcome.reason });
      const kind = outcome.stored.duplicate ? 'duplicate' : 'stored';
      return show(200, { kind, serial: outcome.stored.serial });
    },
  );
}
