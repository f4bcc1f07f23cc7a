/**
 * The site's icon, answered at /favicon.ico (where browsers ask for it): a 32 × 32 PNG of a
 * seismograph trace on a blue square. Browsers take a PNG under that name.
 */
export const FAVICON_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAYAAABzenr0AAAAkUlEQVR42u3XbQqAIAwG4B2i43Swbl8QCEKO3LsvFw36/T4q2kbE1LYfp+VHM2UdKsJEhQ8R0eEPRGlAKxigXYUGcCMswlW7UAYwCgkDcCEpgD5oOQCCIGl4C+FKejVdATMIegvzKAggWTUMQI9DcyNqATzehO8A0F9zPYBFE1IfYN6Y/m15OiB9NFtiOM0azy9kMS3uOriZwgAAAABJRU5ErkJggg==',
  'base64',
);
