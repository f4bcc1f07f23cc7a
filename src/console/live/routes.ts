import type { FastifyReply, FastifyRequest } from 'fastify';
import { getAccount } from '../../accounts/accounts.ts';
import { contractedClassifications } from '../../accounts/contracts.ts';
import { FailureLimiter } from '../../auth/failure-limiter.ts';
import { liveSessionDigests } from '../../auth/signin-sessions.ts';
import { busCodecs } from '../../bus/codecs.ts';
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/surface.ts';
import { StationLists } from '../../parameter/lists.ts';
import { TelegramCache } from '../../telegrams/cache.ts';
import { loadConversionOf, loadOriginalOf } from '../../telegrams/conversion-of.ts';
import { loadTelegram, queryTelegrams } from '../../telegrams/store.ts';
import { languageOf } from '../i18n.ts';
import { signedIn } from '../visit.ts';
import { currentSession } from '../signin-cookies.ts';
import { asWebScope, sendErrorPage } from '../web.ts';
import { LIVE_SCRIPT, LIVE_STYLE } from './assets.ts';
import { decodedBody } from './documents.ts';
import { defaultFeedLimits, LiveFeed } from './feed.ts';
import { sendLivePage } from './layout.ts';
import { liveMessages } from './messages.ts';
import { renderLivePage, renderQuakePage, renderTelegramPage } from './pages.ts';
import { livePaths } from './paths.ts';
import { loadQuake, newestQuakeId } from './quake.ts';

/** Telegrams listed on the live view when it opens. */
const RECENT = 30;
/** The stream looks at the store this often without an announcement (docs/realtime.md). */
const HEAL_INTERVAL_MS = 1000;
/** A comment line this often keeps proxies from closing an idle stream. */
const PING_INTERVAL_MS = 15_000;
/** Streams whose sign-in session ended (signed out, expired, account disabled) close within this. */
const SESSION_CHECK_MS = 5000;
/** Telegram pages (and bodies) one account may open a minute, counted across processes (docs/console-live.md). */
export const TELEGRAM_PAGE_LIMIT = { limit: 60, windowMs: 60_000 };
const SERIAL = /^\d{1,15}$/;
const EVENT_ID = /^[0-9A-Za-z_-]{1,64}$/;

/**
 * The live view, its event stream, the earthquake event and telegram pages (docs/console-live.md).
 * Returns the feed so the administration pages can end a disabled account's streams at once.
 */
export async function registerLiveConsole(app: App, ctx: AppContext): Promise<LiveFeed> {
  const { cache } = await TelegramCache.shared(ctx.db, ctx.bus);
  const { lists: stations } = await StationLists.shared(ctx.db, ctx.bus);
  const positions = (code: string) => stations.intensityStation(code);
  const telegramPages = new FailureLimiter(
    ctx.db,
    ctx.pepper,
    'console-telegram-pages',
    TELEGRAM_PAGE_LIMIT,
    ctx.clock,
  );
  const feed = new LiveFeed(cache, defaultFeedLimits, (err) =>
    ctx.log.error({ err }, 'live view stream failed'),
  );
  const timers = [
    setInterval(feed.wake, HEAL_INTERVAL_MS),
    setInterval(() => feed.ping(), PING_INTERVAL_MS),
    setInterval(() => {
      const digests = [...new Set(feed.clients().map((c) => c.sessionDigest))];
      liveSessionDigests(ctx.db, ctx.clock, digests)
        .then((live) => feed.close((c) => !live.has(c.sessionDigest)))
        .catch((err: unknown) => ctx.log.warn({ err }, 'live view session check failed'));
    }, SESSION_CHECK_MS),
  ];
  for (const t of timers) t.unref();
  const unsubscribe = [
    await busCodecs.telegram.subscribe(ctx.bus, feed.wake),
    await busCodecs.contracts.subscribe(ctx.bus, ({ accountId }) => {
      contractedClassifications(ctx.db, accountId)
        .then((c) => feed.refilter(accountId, c))
        .catch((err: unknown) => ctx.log.warn({ err }, 'live view contract refresh failed'));
    }),
  ];
  ctx.onShutdown.push(async () => {
    for (const t of timers) clearInterval(t);
    for (const off of unsubscribe) await off();
    feed.closeAll();
  });

  const asset = (body: string, type: string) => (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .headers({ 'x-content-type-options': 'nosniff', 'cache-control': 'public, max-age=300' })
      .type(type)
      .send(body);
  app.get(livePaths.script, asset(LIVE_SCRIPT, 'text/javascript; charset=utf-8'));
  app.get(livePaths.style, asset(LIVE_STYLE, 'text/css; charset=utf-8'));

  await app.register(async (scope) => {
    asWebScope(scope);

    /** The signed-in visit, or null after a redirect to sign-in that comes back here. */
    const visitOf = (request: FastifyRequest, reply: FastifyReply) =>
      signedIn(ctx, request, reply, request.url.length <= 2048 ? request.url : livePaths.live);

    scope.get(livePaths.live, async (request, reply) => {
      const visit = await visitOf(request, reply);
      if (!visit) return reply;
      const { session, lang } = visit;
      const header = visit.header('live', livePaths.live);
      const contracted = await contractedClassifications(ctx.db, session.accountId);
      // Position first: the stream sends everything after it, so nothing falls between the two.
      const position = await feed.newest();
      const recent =
        contracted.size === 0
          ? []
          : (
              await queryTelegrams(ctx.db, {
                classifications: [...contracted],
                test: 'including',
                formats: ['xml', 'a/n', 'binary'],
                before: position + 1,
                limit: RECENT,
                withXmlReport: true,
              })
            ).filter((t) => t.serial <= position);
      const quakeId = contracted.has('telegram.earthquake') ? await newestQuakeId(ctx.db) : null;
      const quake = quakeId ? await loadQuake(ctx.db, quakeId, positions) : null;
      return sendLivePage(reply, 200, renderLivePage({ lang, header, recent, position, quake }));
    });

    scope.get(livePaths.events, async (request, reply) => {
      const session = await currentSession(ctx, request);
      const account = session ? await getAccount(ctx.db, session.accountId) : null;
      if (!session || !account) return sendErrorPage(reply, 401, 'Sign in to follow the live view.');
      // Taken before anything else is awaited, and given back when the request ends however it ends.
      const slot = feed.reserve({ accountId: account.id, address: request.ip, admin: account.isAdmin });
      if (!slot) return sendErrorPage(reply, 429, liveMessages[languageOf(request)].tooMany);
      reply.raw.once('close', slot.release);
      const lastEventId = request.headers['last-event-id'];
      const after = (request.query as Record<string, unknown>).after;
      const from = typeof lastEventId === 'string' && SERIAL.test(lastEventId) ? lastEventId : after;
      const position = typeof from === 'string' && SERIAL.test(from) ? Number(from) : await feed.newest();
      const classifications = await contractedClassifications(ctx.db, session.accountId);
      reply.hijack();
      reply.raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'x-accel-buffering': 'no',
      });
      reply.raw.write('retry: 1000\n\n');
      try {
        await feed.open(
          { accountId: session.accountId, sessionDigest: session.digest, classifications },
          reply.raw,
          position,
        );
      } catch (err) {
        // The headers are sent: the stream just ends, and the browser reconnects from its last id.
        request.log.error({ err }, 'live view stream failed to open');
        reply.raw.end();
      }
    });

    /** The telegram of the path for a signed-in account contracted for it; null after answering. */
    async function telegramOf(request: FastifyRequest, reply: FastifyReply) {
      const visit = await visitOf(request, reply);
      if (!visit) return null;
      const { session, lang } = visit;
      const wait = await telegramPages.take([String(session.accountId)]);
      if (wait > 0) {
        void sendErrorPage(reply.header('retry-after', String(wait)), 429, liveMessages[lang].tooManyPages);
        return null;
      }
      const { serial } = request.params as { serial: string };
      const record = SERIAL.test(serial)
        ? (cache.get(Number(serial)) ?? (await loadTelegram(ctx.db, Number(serial))))
        : null;
      const contracted = await contractedClassifications(ctx.db, session.accountId);
      if (!record || !contracted.has(record.classification)) {
        void sendErrorPage(reply, 404, liveMessages[lang].notFound);
        return null;
      }
      return { visit, record };
    }

    scope.get(livePaths.telegram, async (request, reply) => {
      const found = await telegramOf(request, reply);
      if (!found) return reply;
      const { visit, record } = found;
      const { lang } = visit;
      const related =
        record.format === 'json'
          ? await loadOriginalOf(ctx.db, record.conversion!.originalId)
          : await loadConversionOf(ctx.db, record.id);
      return sendLivePage(
        reply,
        200,
        renderTelegramPage({ lang, header: visit.header('live', livePaths.live), record, related }),
      );
    });

    // The body itself, as stored (gzip undone), for the page's link: plain text that no browser
    // renders or runs, sandboxed like the data API's bodies.
    scope.get(livePaths.body, async (request, reply) => {
      const found = await telegramOf(request, reply);
      if (!found) return reply;
      const bytes = decodedBody(found.record);
      if (!bytes) return sendErrorPage(reply, 404, liveMessages[found.visit.lang].bodyTooLarge);
      return reply
        .headers({
          'content-security-policy': "default-src 'none'; sandbox",
          'x-content-type-options': 'nosniff',
          'cache-control': 'private, no-store',
        })
        .type(found.record.format === 'binary' ? 'application/octet-stream' : 'text/plain; charset=utf-8')
        .send(bytes);
    });

    scope.get(livePaths.quake, async (request, reply) => {
      const visit = await visitOf(request, reply);
      if (!visit) return reply;
      const { session, lang } = visit;
      const { eventId } = request.params as { eventId: string };
      const contracted = await contractedClassifications(ctx.db, session.accountId);
      const quake =
        EVENT_ID.test(eventId) && contracted.has('telegram.earthquake')
          ? await loadQuake(ctx.db, eventId, positions)
          : null;
      if (!quake) return sendErrorPage(reply, 404, liveMessages[lang].eventNotFound);
      return sendLivePage(reply, 200, renderQuakePage(lang, visit.header('live', livePaths.live), quake));
    });
  });
  return feed;
}
