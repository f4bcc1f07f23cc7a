import type { FastifyReply, FastifyRequest } from 'fastify';
import { contractedClassifications } from '../../accounts/contracts.ts';
import { FailureLimiter } from '../../security/failure-limiter.ts';
import { liveSessionDigests } from '../signin/signin-sessions.ts';
import { busCodecs } from '../../bus/codecs.ts';
import type { AppContext } from '../../context.ts';
import { keepAliveInterval } from '../../http/keep-alive.ts';
import { onStop } from '../../http/stop.ts';
import type { App } from '../../http/surface.ts';
import { loadConversionOf, loadOriginalOf } from '../../telegrams/conversion-of.ts';
import { loadTelegram, queryTelegrams } from '../../telegrams/store.ts';
import { languageOf } from '../i18n.ts';
import { sendLivePage } from '../live-frame.ts';
import { livePaths } from '../paths.ts';
import { findVisit, guardVisits, type QueryOf } from '../visit.ts';
import { sendErrorPage } from '../web.ts';
import { LIVE_SCRIPT, LIVE_STYLE } from './assets.ts';
import { decodedBody } from './documents.ts';
import { eewInEffect } from './eew-now.ts';
import { defaultFeedLimits, LiveFeed } from './feed.ts';
import { liveMessages } from './messages.ts';
import { renderLivePage, renderQuakePage, renderTelegramPage } from './pages.ts';
import { loadQuake, loadTrainingQuake, newestQuake, type StationPositions } from './quake.ts';
import type { TelegramCache } from '../../telegrams/cache.ts';
import { addressGroup } from '../../http/client-address.ts';

/** Telegrams listed on the live view when it opens. */
const RECENT = 30;
/** The stream looks at the store this often without an announcement (docs/realtime.md). */
const HEAL_INTERVAL_MS = 1000;
/** Streams whose sign-in session ended (signed out, expired, account disabled) close within this. */
const SESSION_CHECK_MS = 5000;
/** Telegram pages (and bodies) one account may open a minute, counted across processes (docs/console-live.md). */
export const TELEGRAM_PAGE_LIMIT = { limit: 60, windowMs: 60_000 };
const SERIAL = /^\d{1,15}$/;
const EVENT_ID = /^[0-9A-Za-z_-]{1,64}$/;

/** The live view's shared parts: the telegram cache, station positions and the feed of its streams. */
export interface LiveView {
  cache: TelegramCache;
  positions: StationPositions;
  feed: LiveFeed;
}

/**
 * Starts the live view's feed (docs/console-live.md): woken by every announced telegram and on a
 * timer, refiltered when an account's contracts change, and closing the streams whose sign-in
 * session ended. Everything stops when `app` begins to close, the streams before the HTTP server
 * waits for its requests to end (an open stream is one).
 */
export async function openLiveView(app: App, ctx: AppContext): Promise<LiveView> {
  const cache = ctx.telegrams;
  const { stations } = ctx;
  const feed = new LiveFeed(cache, ctx.clock, defaultFeedLimits, (err) =>
    ctx.log.error({ err }, 'live view stream failed'),
  );
  const timers = [
    setInterval(feed.wake, HEAL_INTERVAL_MS),
    setInterval(() => feed.ping(), keepAliveInterval(ctx.config)),
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
  onStop(app, 'preClose', async () => {
    for (const t of timers) clearInterval(t);
    for (const off of unsubscribe) await off();
    feed.closeAll();
  });
  return { cache, positions: (code) => stations.intensityStation(code), feed };
}

/** The live view's script and stylesheet (outside the pages' area: anyone may load them). */
export function registerLiveAssets(app: App): void {
  const asset = (body: string, type: string) => (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .headers({ 'x-content-type-options': 'nosniff', 'cache-control': 'public, max-age=300' })
      .type(type)
      .send(body);
  app.get(livePaths.script, asset(LIVE_SCRIPT, 'text/javascript; charset=utf-8'));
  app.get(livePaths.style, asset(LIVE_STYLE, 'text/css; charset=utf-8'));
}

/**
 * The live area: the event stream (which answers a signed-out request itself), and behind the
 * area's gate the live view, the earthquake event and telegram pages (docs/console-live.md).
 */
export async function liveArea(area: App, { ctx, live }: { ctx: AppContext; live: LiveView }): Promise<void> {
  area.get<{ Querystring: QueryOf<'after'> }>(livePaths.events, async (request, reply) => {
    const visit = await findVisit(ctx, request);
    if (!visit) return sendErrorPage(reply, 401, 'Sign in to follow the live view.', { messageLang: 'en' });
    const { account, session } = visit;
    if (request.method === 'HEAD') {
      // The stream's headers and no stream (a HEAD's writes are dropped, so its headers would never
      // leave): no slot taken, no feed opened.
      openStream(reply);
      reply.raw.end();
      return;
    }
    // Taken before anything else is awaited, and given back when the request ends however it ends.
    const slot = live.feed.reserve({
      accountId: account.id,
      address: addressGroup(request.ip),
      admin: account.isAdmin,
    });
    if (!slot) return sendErrorPage(reply, 429, liveMessages[languageOf(request)].tooMany);
    reply.raw.once('close', slot.release);
    const lastEventId = request.headers['last-event-id'];
    const from =
      typeof lastEventId === 'string' && SERIAL.test(lastEventId) ? lastEventId : request.query.after;
    const position = typeof from === 'string' && SERIAL.test(from) ? Number(from) : await live.feed.newest();
    const classifications = await contractedClassifications(ctx.db, session.accountId);
    openStream(reply);
    try {
      const client = { accountId: session.accountId, sessionDigest: session.digest, classifications };
      await live.feed.open(client, reply.raw, position);
    } catch (err) {
      // The headers are sent: the stream just ends, and the browser reconnects from its last id.
      request.log.error({ err }, 'live view stream failed to open');
      reply.raw.end();
    }
  });
  await area.register(livePages, { ctx, live });
}

/** Takes the response over for server-sent events: the headers, and the client's reconnection delay. */
function openStream(reply: FastifyReply): void {
  reply.hijack();
  reply.raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-accel-buffering': 'no',
  });
  reply.raw.write('retry: 1000\n\n');
}

type SerialParams = { Params: { serial: string } };

/** The live view: the newest telegrams the account is contracted for, and the newest earthquake event. */
async function showLiveView(ctx: AppContext, live: LiveView, request: FastifyRequest, reply: FastifyReply) {
  const { session, lang } = request.visit;
  const header = request.visit.header('live', livePaths.live);
  const contracted = await contractedClassifications(ctx.db, session.accountId);
  // Position first: the stream sends everything after it, so nothing falls between the two.
  const position = await live.feed.newest();
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
  const quake = contracted.has('telegram.earthquake') ? await newestQuake(ctx.db, live.positions) : null;
  const eew = await eewInEffect(ctx.db, live.cache, contracted, position, ctx.clock.now());
  return sendLivePage(
    reply,
    200,
    renderLivePage({ lang, header, recent, position, quake, contracted: contracted.size > 0, eew }),
  );
}

/** What a telegram page reads: the store, its cache, and the accounts' page limits. */
interface TelegramPages {
  ctx: AppContext;
  cache: TelegramCache;
  pages: FailureLimiter;
}

/** The telegram of the path if the account is contracted for it, within its page limit; null after answering. */
async function telegramOf(
  { ctx, cache, pages }: TelegramPages,
  request: FastifyRequest<SerialParams>,
  reply: FastifyReply,
) {
  const { session, lang } = request.visit;
  const wait = await pages.take([String(session.accountId)]);
  if (wait > 0) {
    void sendErrorPage(reply.header('retry-after', String(wait)), 429, liveMessages[lang].tooManyPages);
    return null;
  }
  const { serial } = request.params;
  const record = SERIAL.test(serial)
    ? (cache.get(Number(serial)) ?? (await loadTelegram(ctx.db, Number(serial))))
    : null;
  const contracted = await contractedClassifications(ctx.db, session.accountId);
  if (!record || !contracted.has(record.classification)) {
    void sendErrorPage(reply, 404, liveMessages[lang].notFound);
    return null;
  }
  return record;
}

async function livePages(scope: App, { ctx, live }: { ctx: AppContext; live: LiveView }): Promise<void> {
  // Sign-in comes back to the page asked for (a path too long to carry back to the live view).
  guardVisits(scope, ctx, {
    returnTo: (request) => (request.url.length <= 2048 ? request.url : livePaths.live),
  });
  const pages = new FailureLimiter(
    ctx.db,
    ctx.pepper,
    'console-telegram-pages',
    TELEGRAM_PAGE_LIMIT,
    ctx.clock,
  );
  const telegrams: TelegramPages = { ctx, cache: live.cache, pages };

  scope.get(livePaths.live, (request, reply) => showLiveView(ctx, live, request, reply));

  scope.get<SerialParams>(livePaths.telegram, async (request, reply) => {
    const record = await telegramOf(telegrams, request, reply);
    if (!record) return reply;
    const { visit } = request;
    const related =
      record.format === 'json'
        ? await loadOriginalOf(ctx.db, record.conversion!.originalId)
        : await loadConversionOf(ctx.db, record.id);
    const header = visit.header('live', livePaths.live);
    return sendLivePage(reply, 200, renderTelegramPage({ lang: visit.lang, header, record, related }));
  });

  // The body itself, as stored (gzip undone), for the page's link: plain text that no browser
  // renders or runs, sandboxed like the data API's bodies.
  scope.get<SerialParams>(livePaths.body, async (request, reply) => {
    const record = await telegramOf(telegrams, request, reply);
    if (!record) return reply;
    const bytes = decodedBody(record);
    if (!bytes) return sendErrorPage(reply, 404, liveMessages[request.visit.lang].bodyTooLarge);
    return reply
      .headers({
        // Framed by no page and naming no referrer, as the console's own pages.
        'content-security-policy': "default-src 'none'; sandbox; frame-ancestors 'none'",
        'x-frame-options': 'DENY',
        'referrer-policy': 'no-referrer',
        'x-content-type-options': 'nosniff',
        'cache-control': 'private, no-store',
      })
      .type(record.format === 'binary' ? 'application/octet-stream' : 'text/plain; charset=utf-8')
      .send(bytes);
  });

  scope.get<{ Params: { eventId: string } }>(livePaths.quake, async (request, reply) => {
    const { visit } = request;
    const { eventId } = request.params;
    const contracted = await contractedClassifications(ctx.db, visit.session.accountId);
    const quake =
      EVENT_ID.test(eventId) && contracted.has('telegram.earthquake')
        ? ((await loadQuake(ctx.db, eventId, live.positions)) ??
          (await loadTrainingQuake(ctx.db, eventId, live.positions)))
        : null;
    if (!quake) return sendErrorPage(reply, 404, liveMessages[visit.lang].eventNotFound);
    return sendLivePage(reply, 200, renderQuakePage(visit.lang, visit.header('live', livePaths.live), quake));
  });
}
