/**
 * Time zones under their current IANA names. The ICU inside browsers and Node still calls some
 * zones by names the IANA database has since replaced (Intl.supportedValuesOf('timeZone') lists
 * Asia/Calcutta, not Asia/Kolkata; resolvedOptions() turns 'Asia/Kolkata' back into
 * 'Asia/Calcutta'). The two names are links to one zone with the same rules: this table only
 * renames, so midnights never move.
 */
const IANA_NAMES: Readonly<Record<string, string>> = {
  'Africa/Asmera': 'Africa/Asmara',
  'America/Buenos_Aires': 'America/Argentina/Buenos_Aires',
  'America/Catamarca': 'America/Argentina/Catamarca',
  'America/Coral_Harbour': 'America/Atikokan',
  'America/Cordoba': 'America/Argentina/Cordoba',
  'America/Godthab': 'America/Nuuk',
  'America/Indianapolis': 'America/Indiana/Indianapolis',
  'America/Jujuy': 'America/Argentina/Jujuy',
  'America/Louisville': 'America/Kentucky/Louisville',
  'America/Mendoza': 'America/Argentina/Mendoza',
  'Asia/Calcutta': 'Asia/Kolkata',
  'Asia/Katmandu': 'Asia/Kathmandu',
  'Asia/Rangoon': 'Asia/Yangon',
  'Asia/Saigon': 'Asia/Ho_Chi_Minh',
  'Atlantic/Faeroe': 'Atlantic/Faroe',
  'Europe/Kiev': 'Europe/Kyiv',
  'Pacific/Enderbury': 'Pacific/Kanton',
  'Pacific/Ponape': 'Pacific/Pohnpei',
  'Pacific/Truk': 'Pacific/Chuuk',
};

/** `zone` under its current IANA name, when this runtime's Intl accepts that name; else `zone`. */
export function ianaZoneName(zone: string): string {
  const current = Object.hasOwn(IANA_NAMES, zone) ? IANA_NAMES[zone] : undefined;
  if (current === undefined) return zone;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: current });
    return current;
  } catch {
    return zone;
  }
}
