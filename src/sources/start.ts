import type { Config } from '../config.ts';
import type { SourceDeps } from './deps.ts';
import { JmaFeedSource } from './jma-feed.ts';
import { UpstreamRelay } from './upstream.ts';

export interface RunningSources {
  stop(): Promise<void>;
}

/** Starts the configured network sources (NAMAZU_SOURCES); run in one process per node. */
export function startSources(config: Config, deps: SourceDeps): RunningSources {
  const running: RunningSources[] = [];
  if (config.sources.includes('jma-feed')) {
    const feed = new JmaFeedSource(deps, { urls: config.jmaFeedUrls, intervalMs: config.jmaFeedIntervalMs });
    feed.start();
    running.push(feed);
  }
  if (config.sources.includes('upstream') && config.upstreamUrl !== null) {
    const relay = new UpstreamRelay(deps, {
      url: config.upstreamUrl,
      dataUrl: config.upstreamDataUrl,
      credential:
        config.upstreamApiKey !== null
          ? { apiKey: config.upstreamApiKey }
          : {
              clientId: config.upstreamClientId!,
              clientSecret: config.upstreamClientSecret!,
              tokenUrl: config.upstreamTokenUrl,
            },
      classifications: config.upstreamClassifications,
      connections: config.upstreamConnections,
    });
    relay.start();
    running.push(relay);
  }
  deps.log.info({ sources: config.sources }, 'sources started');
  return { stop: async () => void (await Promise.all(running.map((s) => s.stop()))) };
}
