import { readFileSync } from 'node:fs';

/**
 * The JMA codes, names and positions that earthquake scenarios evaluate (docs/sources.md, "Where
 * codes and positions come from"): data/scenario-sites.json, written by scripts/scenario-sites.ts
 * from the JMA XML fixtures, read once when this module loads. The release bundle finds it in
 * dist/data/, beside its chunks (scripts/build.js copies it there).
 */
export interface ScenarioSites {
  /** Epicentre areas (震央地名): code, name, latitude, longitude of a hypocentre issued with it. */
  epicentres: [string, string, number, number][];
  /** Prefectures (地震情報／都道府県等): code, name. */
  prefectures: [string, string][];
  /**
   * Intensity areas (地震情報／細分区域): code, name, prefecture code, latitude, longitude, EEW forecast
   * prefecture code (緊急地震速報／府県予報区; empty when no fixture names it).
   */
  areas: [string, string, string, number, number, string][];
  /** Cities (気象・地震・火山情報／市町村等): code, name, area code. */
  cities: [string, string, string][];
  /** Intensity stations (震度観測点): code, name, city code. */
  stations: [string, string, string][];
  /** EEW forecast prefectures (緊急地震速報／府県予報区): code, name. */
  eewPrefectures: [string, string][];
  /** Tsunami forecast areas (津波予報区) named after a prefecture: code, name, latitude, longitude. */
  tsunamiAreas: [string, string, number, number][];
}

export const scenarioSitesPath = new URL('./data/scenario-sites.json', import.meta.url);

const sites = JSON.parse(readFileSync(scenarioSitesPath, 'utf8')) as ScenarioSites;

type Rows<K extends keyof ScenarioSites> = readonly Readonly<ScenarioSites[K][number]>[];
export const EPICENTRES: Rows<'epicentres'> = sites.epicentres;
export const PREFECTURES: Rows<'prefectures'> = sites.prefectures;
export const AREAS: Rows<'areas'> = sites.areas;
export const CITIES: Rows<'cities'> = sites.cities;
export const STATIONS: Rows<'stations'> = sites.stations;
export const EEW_PREFECTURES: Rows<'eewPrefectures'> = sites.eewPrefectures;
export const TSUNAMI_AREAS: Rows<'tsunamiAreas'> = sites.tsunamiAreas;
