CREATE TABLE categories (
    id   INTEGER PRIMARY KEY,
    name VARCHAR(25) NOT NULL UNIQUE
);

CREATE TABLE books (
    id          INTEGER PRIMARY KEY,
    title       VARCHAR(100) NOT NULL UNIQUE,
    price       REAL NOT NULL,
    category_id INTEGER NOT NULL REFERENCES categories(id)
);
CREATE INDEX books_category ON books(category_id);
