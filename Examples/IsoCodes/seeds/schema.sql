-- Countries (ISO 3166-1) and their subdivisions (ISO 3166-2); a subdivision may sit in another.
CREATE TABLE countries (
    id INTEGER PRIMARY KEY,
    code TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    official_name TEXT
);
CREATE TABLE subdivisions (
    id INTEGER PRIMARY KEY,
    code TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    type TEXT NOT NULL,
    parent_id INTEGER REFERENCES subdivisions(id)
);
