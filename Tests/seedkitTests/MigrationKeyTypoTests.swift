import Foundation
import SeedTestSupport
import Testing

/// Newcomer finding A5: a key typo in an update or a delete was reported by `migrate` as a row
/// the user deleted, exit 0, and the migration recorded as applied forever.
///
/// `build` (for an update it can judge) and `check-upgrade` (with the old seeds) now say the key
/// matches no row.
@Suite struct MigrationKeyTypoTests {
    @Test func buildRefusesAnUpdateWhoseKeyMatchesNoRow() throws {
        let project = try TemporaryProject.withRelease()
        try project.write(
            "seeds/data/books.csv",
            "title,price,category_id\nThe first book,11,Fiction\nThe second book,15,Fiction\nThe third book,10,Biography\n"
        )
        try project.write(
            "migrations/0001-typo.yml",
            "update:\n  books:\n    - key: The frist book\n      from: { price: 10.0 }\n      to: { price: 11.0 }\n")
        let build = try project.seedkit("build", "--output", "build/typo.sqlite")
        expectEqual(build.status, 1)
        expectEqual(
            build.stderr,
            "migrations/0001-typo.yml:3: error: update books 'The frist book': the key matches no row of books in the fixtures or any migration's inserts or renames (a typo? migrate would report the row missing and record the migration as applied) [2030]\n",
            "\(build)")
        #expect(!project.exists("build/typo.sqlite"))
        let seed = project.sha256("seeds/releases/1.0.sqlite")
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 1)
        #expect(
            check.stderr.contains(
                "migrations/0001-typo.yml:3: error: update books 'The frist book': the key matches no row of books"),
            "\(check)")
        expectEqual(project.sha256("seeds/releases/1.0.sqlite"), seed)
    }

    @Test func checkUpgradeRefusesADeleteWhoseKeyMatchesNoRowOfAnyOldSeed() throws {
        let project = try TemporaryProject.withRelease()
        try project.write(
            "migrations/0001-typo.yml", "delete:\n  books:\n    - key: The thrid book\n      from: { price: 10.0 }\n")
        // The fixtures no longer hold a deleted row: build cannot tell a typo, the old seeds can.
        try expectEqual(project.seedkit("build").status, 0)
        let seed = project.sha256("seeds/releases/1.0.sqlite")
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 1)
        expectEqual(check.stdout, "")
        expectEqual(
            check.stderr,
            "migrations/0001-typo.yml:3: error: delete books 'The thrid book': the key matches no row of books in the fixtures, the old seeds given or any migration's inserts or renames (a typo? migrate would report the row missing and record the migration as applied) [2030]\n",
            "\(check)")
        expectEqual(project.sha256("seeds/releases/1.0.sqlite"), seed, "the old seed is only read")
        // migrate itself still cannot tell a typo from a row the user deleted: it reports it missing.
        try project.write("user.sqlite", try #require(project.read("seeds/releases/1.0.sqlite")))
        let migrate = try project.seedkit("migrate", "user.sqlite")
        expectEqual(migrate.status, 0)
        #expect(migrate.stdout.contains("books 'The thrid book': not in the store; nothing to delete\n"), "\(migrate)")
    }

    @Test func keysFromOldSeedsInsertsAndRenamesAreNotTypos() throws {
        let project = try TemporaryProject.withRelease()
        try project.write(
            "seeds/data/books.csv",
            "title,price,category_id\nThe first book,11,Fiction\nThe 2nd book,16,Fiction\nVerses,8,Fiction\n")
        try project.write(
            "migrations/0001-release-1-1.yml",
            """
            insert:
              books:
                - { title: Verses, price: 7, category_id: Fiction }
            update:
              books:
                - key: The first book
                  from: { price: 10.0 }
                  to: { price: 11.0 }
                - key: The third book
                  from: { price: 10.0 }
                  to: { price: 11.0 }

            """)
        try project.write(
            "migrations/0002-release-1-2.yml",
            """
            update:
              books:
                - key: Verses
                  from: { price: 7.0 }
                  to: { price: 8.0 }
                - key: The second book
                  from: { title: The second book, price: 15.0 }
                  to: { title: The 2nd book, price: 16.0 }
            delete:
              books:
                - key: The third book
                  from: { price: 11.0, category_id: Biography }

            """)
        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
        #expect(
            check.stdout.contains(
                "seeds/releases/1.0.sqlite: applied 0001-release-1-1, 0002-release-1-2; converges with a fresh build\n"),
            "\(check)")
    }

    @Test func aKeyATableWrittenBySQLMayProvideIsNotATypo() throws {
        let project = try TemporaryProject.withRelease()
        try project.write(
            "migrations/0001-sonnets.sql",
            "INSERT INTO books (title, price, category_id) SELECT 'Sonnets', 5, id FROM categories WHERE name = 'Fiction';\n"
        )
        try project.write(
            "migrations/0002-reprice.yml",
            "update:\n  books:\n    - key: Sonnets\n      from: { price: 5.0 }\n      to: { price: 6.0 }\n")
        let build = try project.seedkit("build", "--output", "build/sql.sqlite")
        expectEqual(build.status, 0, "\(build)")
        expectEqual(build.stderr, "")
    }
}

/// Newcomer finding C4: a missing old seed was "no store here (… build a seed with `seedkit build`)",
/// which a build does not fix: an old seed is one a release shipped.
@Suite struct MissingOldSeedTests {
    @Test func aMissingOldSeedSaysWhereShippedSeedsAreKept() throws {
        let project = try TemporaryProject()
        let from = try project.seedkit("new-migration", "release 1.2", "--from", "seeds/releases/1.1.sqlite")
        expectEqual(from.status, 2)
        expectEqual(
            from.stderr,
            "seeds/releases/1.1.sqlite: error: no old seed here: an old seed is one a release shipped, kept in seeds/releases/ (when you ship, copy build/seed.sqlite there, e.g. to seeds/releases/1.1.sqlite) [2100]\n",
            "\(from)")
        expectEqual(project.listing("migrations"), ["0001-add-fourth-book.yml"])
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.1.sqlite")
        expectEqual(check.status, 2)
        #expect(
            check.stderr.hasPrefix(
                "seeds/releases/1.1.sqlite: error: no old seed here: an old seed is one a release shipped"), "\(check)")
    }

    @Test func anUnexpandedPatternSaysNoSeedHasShippedYet() throws {
        let project = try TemporaryProject()
        // What a shell passes for seeds/releases/*.sqlite when no seed has shipped.
        let check = try project.seedkit("check-upgrade", "seeds/releases/*.sqlite")
        expectEqual(check.status, 2)
        expectEqual(
            check.stderr,
            "seeds/releases/*.sqlite: error: no file matches: no seed has shipped yet (when you ship a release, copy build/seed.sqlite to seeds/releases/<version>.sqlite; until then there is no old seed to check) [2100]\n",
            "\(check)")
        // The CI workflow `init` writes does not run check-upgrade until a seed has shipped.
        let fresh = try TemporaryProject(bookStore: false)
        try fresh.remove("seeds")
        try fresh.remove("migrations")
        try expectEqual(fresh.seedkit("init").status, 0)
        let workflow = String(decoding: try #require(fresh.read(".github/workflows/seedkit.yml")), as: UTF8.self)
        #expect(workflow.contains("shopt -s nullglob\n"))
        #expect(
            workflow.contains(
                "if [ ${#shipped[@]} -eq 0 ]; then echo \"no shipped seeds yet\"; else seedkit check-upgrade \"${shipped[@]}\"; fi\n"
            ))
    }
}
