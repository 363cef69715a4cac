-- IANA tzdb's zone1970.tab: one row per timezone where civil time has agreed since 1970.
CREATE TABLE zones (
    tz TEXT PRIMARY KEY,          -- the TZ name, e.g. Europe/Kyiv
    codes TEXT NOT NULL,          -- ISO 3166 codes of the countries it overlaps, comma-separated
    coordinates TEXT NOT NULL,    -- ISO 6709 sign-degrees-minutes(-seconds)
    comments TEXT                 -- present only where a country has several timezones
);
