import { writtenText } from './free-text.ts';
import { trimmedText, type XmlElement } from './xml-element.ts';

/** Pieces shared by the meteorological schemas (警報・注意報 and their relatives, `body/meteorology1`). */

export const NO_WARNING = '発表警報・注意報はなし';

/** `{code, name}` from an element's `Code` and `Name` children. */
export const codeName = (element: XmlElement | undefined) => ({
  code: trimmedText(element?.child('Code')),
  name: trimmedText(element?.child('Name')),
});

/** One `TimeDefine` of a `TimeSeriesInfo`. */
export interface TimeDefine {
  timeId: string;
  dateTime: string;
  duration: string;
  name: string;
}

type WrittenTimeDefine = Pick<TimeDefine, 'timeId' | 'dateTime'> & Partial<TimeDefine>;

/**
 * `TimeDefines/TimeDefine` → `{timeId, dateTime, duration, name}` ('' for an absent child); with
 * `onlyWritten`, `duration` and `name` appear only where the telegram writes them.
 */
export function timeDefines(info: XmlElement | undefined): TimeDefine[];
export function timeDefines(info: XmlElement | undefined, onlyWritten: true): WrittenTimeDefine[];
export function timeDefines(info: XmlElement | undefined, onlyWritten = false): WrittenTimeDefine[] {
  return (info?.child('TimeDefines')?.all('TimeDefine') ?? []).map((define) => {
    const duration = define.child('Duration');
    const name = define.child('Name');
    return {
      timeId: define.attr('timeId') ?? '',
      dateTime: trimmedText(define.child('DateTime')),
      ...(duration || !onlyWritten ? { duration: trimmedText(duration) } : {}),
      ...(name || !onlyWritten ? { name: trimmedText(name) } : {}),
    };
  });
}

/** The `Note`s of an `Attention` or `Addition`; undefined when there is none. */
export function notes(element: XmlElement | undefined): string[] | undefined {
  const texts = element?.all('Note').map((note) => note.text.trim());
  return texts?.length ? texts : undefined;
}

/** Every `Notice` of the body, as written, one per line; undefined when there is none. */
export function joinedNotices(body: XmlElement | undefined): string | undefined {
  const texts = (body?.all('Notice') ?? []).map((n) => writtenText(n)).filter((t) => t !== undefined);
  return texts.length > 0 ? texts.join('\n') : undefined;
}

/**
 * One `Warning` block of areas (prefecture, region, area group, municipality): an entry per `Item`
 * with its `Area` code and name, its kinds, the change and, for all but municipalities, whether the
 * whole area is concerned and the editing mark (`1` → true). An area whose only kind says 発表警報・注意報はなし
 * has no kinds and that condition.
 */
export function warningAreas<K>(
  warning: XmlElement | undefined,
  grouped: boolean,
  convertKind: (kind: XmlElement) => K,
): object[] {
  return (warning?.all('Item') ?? []).map((item) => {
    const head = codeName(item.child('Area'));
    const kinds = item.all('Kind').filter((kind) => trimmedText(kind.child('Status')) !== NO_WARNING);
    if (kinds.length === 0) return { ...head, kinds: [], condition: NO_WARNING };
    return {
      ...head,
      kinds: kinds.map(convertKind),
      changeStatus: trimmedText(item.child('ChangeStatus')),
      ...(grouped
        ? {
            fullStatus: trimmedText(item.child('FullStatus')),
            editingMark: trimmedText(item.child('EditingMark')) === '1',
          }
        : {}),
    };
  });
}
