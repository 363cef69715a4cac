import Foundation
import GRDB
import SeedTestSupport
import Testing

/// A build remembers the parent ids its refs found (a million rows name a few parents); each
/// row must still get its own parent, whatever the key's spelling, type or order.
@Suite struct RefParentMemoTests {
    @Test func rowsNamingTheSameFewParentsEachGetTheirOwn() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            """
            CREATE TABLE shelves (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE COLLATE NOCASE, number INTEGER NOT NULL UNIQUE);
            CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, shelf_id INTEGER NOT NULL REFERENCES shelves(id),
                                by_number INTEGER REFERENCES shelves(id), parent_id INTEGER REFERENCES books(id));

            """)
        try project.write(
            "seeds/seedkit.yml",
            """
            schema: schema.sql
            output: ../build/seed.sqlite
            tables:
              shelves: { file: data/shelves.csv, key: name }
              books:
                file: data/books.csv
                key: title
                refs: { shelf_id: shelves.name, by_number: shelves.number, parent_id: books.title }

            """)
        try project.write("seeds/data/shelves.csv", "name,number\nFiction,7\nPoetry,3\nHistory,5\n")
        // Parents named again and again, in other spellings (NOCASE), by number, and a book that
        // names a parent book only a later row brings (its miss must not be remembered).
        var books = "title,shelf_id,by_number,parent_id\n"
        let shelves = ["Fiction", "poetry", "HISTORY", "fiction", "Poetry", "history"]
        let numbers = [7, 3, 5, 7, 3, 5]
        for n in 0..<600 {
            books +=
                "Book \(n),\(shelves[n % 6]),\(numbers[n % 6]),\(n == 10 ? "Book 500" : n > 500 ? "Book 500" : "")\n"
        }
        try project.write("seeds/data/books.csv", books)
        let build = try project.seedkit("build", "--migrations", "none")
        expectEqual(build.status, 0, "\(build)")
        let rows = try project.database("build/seed.sqlite").read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT b.title, s.name, n.number, p.title FROM books b JOIN shelves s ON s.id = b.shelf_id
                    JOIN shelves n ON n.id = b.by_number LEFT JOIN books p ON p.id = b.parent_id ORDER BY b.rowid
                    """)
        }
        expectEqual(rows.count, 600)
        for (n, row) in rows.enumerated() {
            let title: String = row[0]
            let index = Int(title.dropFirst(5)) ?? -1
            expectEqual((row[1] as String).lowercased(), shelves[index % 6].lowercased(), "\(title)")
            #expect(row[2] as Int == numbers[index % 6], "\(title)")
            #expect(row[3] as String? == (index == 10 || index > 500 ? "Book 500" : nil), "\(title) at \(n)")
        }
    }
}
