import Foundation
import GRDB
import SeedTestSupport
import Testing

/// Deletes the release makes that only the release's own rows stood in the way of (issue 41,
/// found by ReleasePairPropertyTests): `migrate` denied them ("still referenced") and
/// `check-upgrade` said DIVERGES, where a fresh build has no such row.
@Suite struct MigrateDeleteReferencesTests {
    /// `t (code, ref → t, up → t0)` and `t0 (code)`, built from `rows` as release 1.0, copied to user.sqlite.
    private func project(t: String, t0: String = "code\na\nb\n") throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            """
            CREATE TABLE t0 (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, ref INTEGER REFERENCES t0(id));
            CREATE TABLE t (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, ref INTEGER REFERENCES t(id), up INTEGER REFERENCES t0(id));

            """)
        try project.write(
            "seeds/seedkit.yml",
            """
            schema: schema.sql
            output: ../build/seed.sqlite
            tables:
              t0: { file: data/t0.csv, key: code, refs: { ref: t0.code } }
              t: { file: data/t.csv, key: code, refs: { ref: t.code, up: t0.code } }

            """)
        try project.write("seeds/data/t0.csv", t0)
        try project.write("seeds/data/t.csv", t)
        let built = try project.seedkit("build", "--output", "seeds/releases/1.0.sqlite")
        try #require(built.status == 0, "\(built)")
        try FileManager.default.copyItem(
            atPath: project.path("seeds/releases/1.0.sqlite"), toPath: project.path("user.sqlite"))
        return project
    }

    private func codes(_ project: TemporaryProject, _ table: String) throws -> [String] {
        try project.database("user.sqlite").read { db in
            try String.fetchAll(db, sql: "SELECT code FROM \(table) ORDER BY code")
        }
    }

    /// A row that refers to itself was its own referrer.
    @Test func aRowThatRefersToItselfIsDeleted() throws {
        let project = try project(t: "code,ref\nx,x\ny,\n")
        try project.write("seeds/data/t.csv", "code,ref\ny,\n")
        let generated = try project.seedkit("new-migration", "rel", "--from", "seeds/releases/1.0.sqlite")
        try #require(generated.status == 0, "\(generated)")
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
        let migrated = try migrateCleanly(project)
        #expect(migrated.stdout.contains("applied 0001-rel: 1 deleted"), "\(migrated)")
        try expectEqual(codes(project, "t"), ["y"])
    }

    /// Rows the release deletes that refer to each other (a cycle through nullable refs, and a
    /// row hanging off it): each was held back by another, so none went.
    @Test func rowsThatOnlyEachOtherReferToAreDeletedTogether() throws {
        let project = try project(t: "code,ref\na,b\nb,a\nc,a\nd,\n")
        try project.write("seeds/data/t.csv", "code,ref\nd,\n")
        try #require(try project.seedkit("new-migration", "rel", "--from", "seeds/releases/1.0.sqlite").status == 0)
        let migrated = try migrateCleanly(project)
        #expect(migrated.stdout.contains("applied 0001-rel: 3 deleted"), "\(migrated)")
        try expectEqual(codes(project, "t"), ["d"])
        try expectEqual(project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite").status, 0)

        // A user's row referring to one of them keeps the whole cycle, and says so.
        let kept = try self.project(t: "code,ref\na,b\nb,a\nc,a\nd,\n")
        try kept.write("seeds/data/t.csv", "code,ref\nd,\n")
        try #require(try kept.seedkit("new-migration", "rel", "--from", "seeds/releases/1.0.sqlite").status == 0)
        try kept.database("user.sqlite").write { db in
            try db.execute(sql: "INSERT INTO t (code, ref) SELECT 'mine', id FROM t WHERE code = 'b'")
        }
        let denied = try kept.seedkit("migrate", "user.sqlite")
        expectEqual(denied.status, 0, "\(denied)")
        #expect(
            denied.stderr.contains("warning: delete denied on t 'b': still referenced by t.ref; not deleted [1600]"),
            "\(denied)")
        #expect(
            denied.stderr.contains("warning: delete denied on t 'a': still referenced by t.ref; not deleted [1600]"),
            "\(denied)")
        // c refers to a, but nothing refers to c: it goes.
        try expectEqual(codes(kept, "t"), ["a", "b", "d", "mine"])
    }

    /// The row that held a delete back is updated to a parent the run inserts only at its end (a
    /// new row that refers to itself waits for itself): the delete was decided before.
    @Test func aDeleteWaitsForTheUpdatesThatWaitForTheirParents() throws {
        let project = try project(t: "code,up\nc,a\n")
        try project.write("seeds/data/t0.csv", "code,ref\nb,\nn,n\n")
        try project.write("seeds/data/t.csv", "code,up\nc,n\n")
        let generated = try project.seedkit("new-migration", "rel", "--from", "seeds/releases/1.0.sqlite")
        try #require(generated.status == 0, "\(generated)")
        try migrateCleanly(project)
        try expectEqual(codes(project, "t0"), ["b", "n"])
        let up = try project.database("user.sqlite").read { db in
            try String.fetchAll(db, sql: "SELECT t.code || '→' || t0.code FROM t JOIN t0 ON t0.id = t.up")
        }
        expectEqual(up, ["c→n"])
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
    }

    /// A row inserted under the new key of a rename whose update waits for a parent the run
    /// inserts at its end: the insert was reported as waiting for a key nobody brings ("the user
    /// deleted it?") and left out.
    @Test func anInsertReferringToARenamedRowWaitsForTheRename() throws {
        let project = try project(t: "code,up\n")
        try project.write("seeds/data/t0.csv", "code,ref\na2,n\nb,\nn,n\n")
        try project.write("seeds/data/t.csv", "code,up\nc,a2\n")
        let generated = try project.seedkit(
            "new-migration", "rel", "--from", "seeds/releases/1.0.sqlite", "--rename", "t0:a=a2")
        try #require(generated.status == 0, "\(generated)")
        try migrateCleanly(project)
        let rows = try project.database("user.sqlite").read { db in
            try String.fetchAll(
                db,
                sql:
                    "SELECT 't ' || t.code || '→' || t0.code FROM t JOIN t0 ON t0.id = t.up UNION ALL SELECT 't0 ' || a.code || '→' || coalesce(b.code, '') FROM t0 a LEFT JOIN t0 b ON b.id = a.ref ORDER BY 1"
            )
        }
        expectEqual(rows, ["t c→a2", "t0 a2→n", "t0 b→", "t0 n→n"])
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
    }

    /// A renamed row that referred to itself and now refers elsewhere: the rename's `from` named
    /// the row by its new key, which no row holds until the rename runs ("its 'from' … matches no row").
    @Test func aRenamedRowThatReferredToItselfIsRenamed() throws {
        let project = try project(t: "code,up\n", t0: "code,ref\na,a\nb,\n")
        try project.write("seeds/data/t0.csv", "code,ref\na2,b\nb,\n")
        let generated = try project.seedkit(
            "new-migration", "rel", "--from", "seeds/releases/1.0.sqlite", "--rename", "t0:a=a2")
        try #require(generated.status == 0, "\(generated)")
        try migrateCleanly(project)
        let rows = try project.database("user.sqlite").read { db in
            try String.fetchAll(
                db,
                sql: "SELECT a.code || '→' || coalesce(b.code, '') FROM t0 a LEFT JOIN t0 b ON b.id = a.ref ORDER BY 1")
        }
        expectEqual(rows, ["a2→b", "b→"])
        try expectEqual(project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite").status, 0)

        // And one that comes to refer to itself under its new key.
        let other = try self.project(t: "code,up\n", t0: "code,ref\na,b\nb,\n")
        try other.write("seeds/data/t0.csv", "code,ref\na2,a2\nb,\n")
        try #require(
            try other.seedkit("new-migration", "rel", "--from", "seeds/releases/1.0.sqlite", "--rename", "t0:a=a2")
                .status == 0)
        let selfMigrated = try other.seedkit("migrate", "user.sqlite")
        expectEqual(selfMigrated.stderr, "", "\(selfMigrated)")
        let selfRows = try other.database("user.sqlite").read { db in
            try String.fetchAll(
                db,
                sql: "SELECT a.code || '→' || coalesce(b.code, '') FROM t0 a LEFT JOIN t0 b ON b.id = a.ref ORDER BY 1")
        }
        expectEqual(selfRows, ["a2→a2", "b→"])
        try expectEqual(other.seedkit("check-upgrade", "seeds/releases/1.0.sqlite").status, 0)
    }

    /// Two tables that refer to each other: the first one's updates run before the second one's
    /// renames, and named the renamed rows by their new keys (a `from` no row held yet).
    @Test func tablesThatReferToEachOtherNameRowsAsTheyAreWhenTheUpdateRuns() throws {
        let project = try TemporaryProject(bookStore: false)
        try project.write(
            "seeds/schema.sql",
            """
            CREATE TABLE a (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, b_id INTEGER REFERENCES b(id));
            CREATE TABLE b (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, a_id INTEGER REFERENCES a(id), v TEXT);

            """)
        try project.write(
            "seeds/seedkit.yml",
            """
            schema: schema.sql
            output: ../build/seed.sqlite
            tables:
              a: { file: data/a.csv, key: code, refs: { b_id: b.code } }
              b: { file: data/b.csv, key: code, refs: { a_id: a.code } }

            """)
        try project.write("seeds/data/a.csv", "code,b_id\nx,\nz,\n")
        try project.write("seeds/data/b.csv", "code,a_id,v\nm,x,1\nn,x,2\n")
        try #require(try project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status == 0)
        // a's rows renamed (x → x2, z → z2); b's rows change their values, and n its ref, from
        // x to z2: b's updates run first, and named x2 and x, which no row holds at one time.
        try project.write("seeds/data/a.csv", "code,b_id\nx2,n\nz2,m\n")
        try project.write("seeds/data/b.csv", "code,a_id,v\nm,x2,3\nn,z2,4\n")
        let generated = try project.seedkit(
            "new-migration", "rel", "--from", "seeds/releases/1.0.sqlite", "--rename", "a:x=x2", "--rename", "a:z=z2")
        try #require(generated.status == 0, "\(generated)")
        try FileManager.default.copyItem(
            atPath: project.path("seeds/releases/1.0.sqlite"), toPath: project.path("user.sqlite"))
        try migrateCleanly(project)
        let rows = try project.database("user.sqlite").read { db in
            try String.fetchAll(
                db,
                sql:
                    "SELECT 'a ' || a.code || '→' || coalesce(b.code, '') FROM a LEFT JOIN b ON b.id = a.b_id UNION ALL SELECT 'b ' || b.code || '→' || coalesce(a.code, '') || ' ' || b.v FROM b LEFT JOIN a ON a.id = b.a_id ORDER BY 1"
            )
        }
        expectEqual(rows, ["a x2→n", "a z2→m", "b m→x2 3", "b n→z2 4"])
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
    }

    /// A delete whose `from` names a renamed row by its new key, where the rename waits for a
    /// row the run inserts at its end (the two refer to each other): the delete was tried before
    /// the rename ran, and called a conflict (`its 'from' ref 'r5' matches no t0.code`).
    @Test func aDeleteWhoseFromNamesAWaitingRenameWaitsForIt() throws {
        let project = try project(t: "code,up\n", t0: "code,ref\nx341,x208\nx208,\nd,x341\n")
        try project.write("seeds/data/t0.csv", "code,ref\nr5,r4\nr4,r5\n")
        let generated = try project.seedkit(
            "new-migration", "rel", "--from", "seeds/releases/1.0.sqlite", "--rename", "t0:x341=r5")
        try #require(generated.status == 0, "\(generated)")
        try migrateCleanly(project)
        let rows = try project.database("user.sqlite").read { db in
            try String.fetchAll(
                db,
                sql: "SELECT a.code || '→' || coalesce(b.code, '') FROM t0 a LEFT JOIN t0 b ON b.id = a.ref ORDER BY 1")
        }
        expectEqual(rows, ["r4→r5", "r5→r4"])
        try expectEqual(project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite").status, 0)
    }

    /// The same for an update: its `from` named the renamed row by its new key (`ref: r5`) while
    /// the rename waited, and the update was called a conflict and not applied.
    @Test func anUpdateWhoseFromNamesAWaitingRenameWaitsForIt() throws {
        let project = try project(t: "code,up\n", t0: "code,ref\nx341,x208\nx208,\nu,x341\n")
        try project.write("seeds/data/t0.csv", "code,ref\nr5,r4\nr4,r5\nx208,\nu,x208\n")
        let generated = try project.seedkit(
            "new-migration", "rel", "--from", "seeds/releases/1.0.sqlite", "--rename", "t0:x341=r5")
        try #require(generated.status == 0, "\(generated)")
        try migrateCleanly(project)
        let rows = try project.database("user.sqlite").read { db in
            try String.fetchAll(
                db,
                sql: "SELECT a.code || '→' || coalesce(b.code, '') FROM t0 a LEFT JOIN t0 b ON b.id = a.ref ORDER BY 1")
        }
        expectEqual(rows, ["r4→r5", "r5→r4", "u→x208", "x208→"])
        try expectEqual(project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite").status, 0)
    }
}

/// Migrates the project's user.sqlite, expecting a clean run: exit 0, nothing on stderr.
@discardableResult
private func migrateCleanly(
    _ project: TemporaryProject, sourceLocation: SourceLocation = #_sourceLocation
) throws -> CommandResult {
    let migrated = try project.seedkit("migrate", "user.sqlite")
    expectEqual(migrated.status, 0, "\(migrated)", sourceLocation: sourceLocation)
    expectEqual(migrated.stderr, "", "\(migrated)", sourceLocation: sourceLocation)
    return migrated
}
