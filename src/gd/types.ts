import type {
  Components,
  EarthquakeHypocenterUpdate,
  EarthquakeInformation,
  EewInformation,
  TelegramJSONMain,
} from '@dmdata/telegram-json-types';

/** The JSON telegram a converted document was stored as (its own serial, id and reception time). */
export interface ProjectedTelegram {
  serial: number;
  id: string;
  /** ISO 8601 reception time. */
  receivedTime: string;
}

/** What ingest hands to a projection: the converted document and where it was stored. */
export interface ProjectionInput<D> {
  /** JMA data type code of the source XML (`VXSE53`). */
  type: string;
  document: D;
  telegram: ProjectedTelegram;
  /** The source telegram is a test telegram (訓練/試験, or the transport says so). */
  test: boolean;
}

/** What a projection needs of a conversion before it is stored (its serial and id come at commit). */
export type ProjectionSource = Omit<ProjectionInput<TelegramJSONMain>, 'telegram'>;

export type EarthquakeDocument =
  | EarthquakeInformation.v1_0_0.Main
  | EarthquakeInformation.v1_1_0.Main
  | EarthquakeHypocenterUpdate.v1_0_0.Main;

export type EewDocument = EewInformation.v1_0_0.Main;

export type EarthquakeReportInput = ProjectionInput<EarthquakeDocument>;
export type EewReportInput = ProjectionInput<EewDocument>;

export type IntensityClass = EarthquakeInformation.v1_1_0.IntensityClass;
export type Hypocenter = Components.Earthquake['hypocenter'];
export type Magnitude = Components.Earthquake['magnitude'];

/** The earthquake event summary (docs/gd.md) (`items[]` of the earthquake list). */
export interface EarthquakeEventSummary {
  id: number;
  type: 'normal' | 'distant';
  eventId: string;
  originTime?: string;
  arrivalTime: string;
  hypocenter?: Hypocenter;
  magnitude?: Magnitude;
  maxInt: IntensityClass | null;
  maxLgInt?: string;
  lgCategory?: string;
}

/** The early-warning record (docs/gd.md) (`items[]` of the early-warning list and event). */
export interface EewRecord {
  /** Reception id: the serial of the report's JSON telegram. */
  id: number;
  eventId: string;
  serial: number;
  dateTime: string;
  isLastInfo: boolean;
  isCanceled: boolean;
  isWarning?: boolean;
  earthquake?: EewInformation.v1_0_0.Earthquake;
  intensity?: EewInformation.v1_0_0.Intensity;
  text?: string;
}

/** A page of a list: the API turns the positions into its opaque cursors (docs/api-contract.md "Cursors"). */
export interface ListPage<T> {
  items: T[];
  /** Present when older items exist: the next page holds the items strictly older than this position. */
  nextToken?: number;
}
