/** The paths of the live view, event and telegram pages and their assets. */
export const livePaths = {
  live: '/console/live',
  events: '/console/live/events',
  telegram: '/console/telegrams/:serial',
  body: '/console/telegrams/:serial/body',
  quake: '/console/earthquakes/:eventId',
  script: '/console/assets/live.js',
  style: '/console/assets/live.css',
} as const;
