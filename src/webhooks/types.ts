// The language-neutral summary of a telegram (summary.ts) and the facts it holds.

/** How loud a post is: ntfy's priorities 5…2, Discord's and Slack's colours. */
export type Severity = 'urgent' | 'high' | 'default' | 'low';

/** A training (訓練) or test (試験, and the EEW delivery test) telegram, marked on every post. */
export type Mark = 'training' | 'test' | null;

export type Category = 'eew' | 'earthquake' | 'tsunami' | 'volcano' | 'weather' | 'other';

/** JMA's class of seismic intensity: 0…4, 5-, 5+, 6-, 6+, 7. */
export type Intensity = string;

export interface Magnitude {
  /** "6.6"; null when JMA gives none. */
  value: string | null;
  /** Why there is no value: "Ｍ不明", "Ｍ８を超える巨大地震". */
  condition: string | null;
}

export interface Depth {
  value: string | null;
  /** "ごく浅い", "７００ｋｍ以上", "不明". */
  condition: string | null;
}

export interface Hypocentre {
  epicentre: string | null;
  magnitude: Magnitude | null;
  depth: Depth | null;
  /** ISO 8601 with offset. */
  originTime: string | null;
}

/** A class as JMA forecasts it: from == to for one class, to "over" for "from or more", 不明 unknown. */
export interface ClassRange {
  from: string;
  to: string;
}

/** The long-period ground motion (長周期地震動階級, classes 0…4) that a VXSE62 reports as observed. */
export interface LongPeriod {
  /** The maximum class observed (Observation/MaxLgInt). */
  max: string;
  /** The regions of the strongest classes (1 or more), strongest first (at most three classes). */
  strongest: AreaGroup[];
  /**
   * Where JMA's LgCategory says that a notable class came with an intensity of 4 or less (2: class
   * 1 or more, 4: class 3 or more), those regions and that class; else null.
   */
  lowIntensity: { from: string; areas: string[] } | null;
}

/** Areas named under one heading: a warning class, an intensity, a kind of warning. */
export interface AreaGroup {
  /**
   * The heading as JMA names it (Japanese): "大津波警報", "大雨警報"; an intensity or a long-period
   * class for `strongest`.
   */
  name: string;
  /** JMA's code of the heading where it has one (tsunami class "52"), else null. */
  code: string | null;
  areas: string[];
}

export type Facts =
  | ({
      kind: 'eew';
      warning: boolean;
      serial: string | null;
      final: boolean;
      /** The epicentre is assumed (仮定震源要素: PLUM or a level method). */
      assumed: boolean;
      /** Forecast maximum intensity, as JMA's range. */
      maxIntensity: ClassRange | null;
      /** Forecast maximum long-period ground motion class (ForecastLgInt), where JMA gives one. */
      maxLongPeriod: ClassRange | null;
      /** Regions under the warning (warnings only). */
      areas: string[];
    } & Hypocentre)
  | ({
      kind: 'earthquake';
      maxIntensity: Intensity | null;
      /**
       * The regions of the strongest intensities, strongest first (at most three classes); none for
       * a VXSE62, whose regions are those with a long-period class, not every region of an intensity.
       */
      strongest: AreaGroup[];
      /** The observed long-period ground motion (VXSE62 only), else null. */
      longPeriod: LongPeriod | null;
      /**
       * The cities JMA lists as 震度５弱以上未入電: an intensity of 5弱 or more may have been observed
       * there but has not come in, so no intensity field holds them.
       */
      unreceived: string[];
      /** JMA's tsunami comment ("この地震による津波の心配はありません。"), one sentence per line. */
      tsunami: string | null;
    } & Hypocentre)
  | { kind: 'tsunami'; classes: AreaGroup[] }
  | {
      kind: 'areas';
      /** Volcanic alert level or the volcano's warning (the target's kind), where there is one. */
      level: string | null;
      /** The volcano(es) the telegram is about. */
      subjects: string[];
      groups: AreaGroup[];
    }
  | { kind: 'plain' };

export interface TelegramSummary {
  /** JMA data type code ("VXSE53"). */
  type: string;
  category: Category;
  /** JMA's Head/Title (Japanese). */
  title: string;
  mark: Mark;
  /** 発表, 訂正, 遅延 or 取消. */
  infoType: string;
  severity: Severity;
  /** Head/ReportDateTime: ISO 8601 with offset. */
  reportTime: string;
  eventId: string | null;
  /** JMA's headline (Japanese only), trimmed; null when the telegram has none. */
  headline: string | null;
  /** A notice's own text (body.text), or JMA's sentence withdrawing a cancelled telegram (summary.ts `withdrawal`). */
  text: string | null;
  facts: Facts;
}

/** The JSON document's header fields that every conversion carries (TelegramJSONMain). */
export interface DocumentHead {
  _schema: { type: string; version: string };
  title: string;
  status: string;
  infoType: string;
  reportDateTime: string;
  eventId: string | null;
  serialNo: string | null;
  headline: string | null;
  body: Record<string, unknown>;
}
