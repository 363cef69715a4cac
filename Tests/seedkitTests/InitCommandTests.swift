import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import Testing

/// The repository's Core Data example: its model and the template made from the reference layout.
private let coreDataExample: URL = {
    var root = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { root.deleteLastPathComponent() }
    return root.appendingPathComponent("Examples/CoreDataBookStore/seeds")
}()

/// An empty temporary folder (TemporaryProject's, without its seeds/ and migrations/).
private func emptyProject() throws -> TemporaryProject {
    let project = try TemporaryProject(bookStore: false)
    try project.remove("seeds")
    try project.remove("migrations")
    return project
}

/// The script of the workflow step named `name`: the lines indented under its `run: |`.
private func workflowStep(_ name: String, in workflow: String) throws -> String {
    let step = try #require(workflow.range(of: "      - name: \(name)\n"))
    let block = try #require(workflow.range(of: "        run: |\n", range: step.upperBound..<workflow.endIndex))
    return workflow[block.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
        .prefix { $0.hasPrefix("          ") }.map { $0.dropFirst(10) }.joined(separator: "\n")
}

/// Runs a workflow step's script with bash as GitHub Actions runs `shell: bash` (-eo pipefail), the
/// debug seedkit first on PATH.
private func runStep(_ script: String, in project: TemporaryProject, environment: [String: String] = [:]) throws
    -> CommandResult
{
    let path =
        seedkitBinary.deletingLastPathComponent().path + ":"
        + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    return try SeedTestSupport.run(
        URL(fileURLWithPath: "/bin/bash"), ["--noprofile", "--norc", "-eo", "pipefail", "-c", script], in: project.root,
        environment: environment.merging(["PATH": path]) { $1 })
}

/// Every path under `root` with what it is: a file's SHA-256, a link's target, or a folder.
private func tree(_ root: URL) -> [String: String] {
    var result: [String: String] = [:]
    func walk(_ relative: String) {
        let path = relative.isEmpty ? root.path : root.appendingPathComponent(relative).path
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            if !relative.isEmpty { result[relative] = "folder" }
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                walk(relative.isEmpty ? name : relative + "/" + name)
            }
        case S_IFLNK:
            result[relative] = "link to " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?")
        default:
            result[relative] =
                FileManager.default.contents(atPath: path).map { "file " + SHA256.hex($0) } ?? "unreadable"
        }
    }
    walk("")
    return result
}

private let plainInitOutput = """
    wrote seeds/seedkit.yml              the manifest: tables, their fixtures, keys and rules
    wrote seeds/schema.sql               the seed's schema (the tables of your app's store)
    wrote seeds/data/items.csv           the fixture of table items, one row per line
    wrote migrations/README.md           numbered data updates go here (seedkit new-migration)
    wrote seeds/releases/README.md       the seeds you ship are kept here, for check-upgrade
    wrote .github/workflows/seedkit.yml  CI: fixture errors as annotations (--format github), shipped seeds must upgrade
    wrote .gitignore                     keeps build/ (the seed build writes) and SwiftPM's .build/ out of git
    next:
      edit seeds/schema.sql and seeds/data/items.csv (and seedkit.yml's tables) for your own data
      seedkit build                         # writes build/seed.sqlite, the seed your app bundles
      cp build/seed.sqlite seeds/releases/1.0.sqlite   # when you ship release 1.0
      seedkit new-migration NAME --from seeds/releases/1.0.sqlite   # after editing the fixtures for the next release
      seedkit check-upgrade seeds/releases/*.sqlite   # every shipped seed upgrades to a fresh build
      set SEEDKIT_GIT_URL in .github/workflows/seedkit.yml: this folder is in no Swift package, so CI installs seedkit from that Git URL

    """

@Suite struct InitCommandTests {
    @Test func initThenBuildThenANewReleaseConvergesWithAFreshBuild() throws {
        let project = try emptyProject()
        let initialized = try project.seedkit("init")
        expectEqual(initialized.status, 0, "\(initialized)")
        expectEqual(initialized.stdout, plainInitOutput)
        expectEqual(initialized.stderr, "")
        expectEqual(project.listing("migrations"), ["README.md"])

        let build = try project.seedkit("build")
        expectEqual(build.status, 0, "\(build)")
        #expect(build.stdout.hasPrefix("built build/seed.sqlite: 1 table, 2 rows"))
        try FileManager.default.copyItem(
            atPath: project.path("build/seed.sqlite"), toPath: project.path("seeds/releases/1.0.sqlite"))

        // The next release: one row added, one value changed.
        try project.write("seeds/data/items.csv", "name,quantity\nFirst item,5\nSecond item,2\nThird item,3\n")
        let migration = try project.seedkit("new-migration", "release 1.1", "--from", "seeds/releases/1.0.sqlite")
        expectEqual(migration.status, 0, "\(migration)")
        expectEqual(migration.stdout, "wrote migrations/0001-release-1-1.yml: 1 insert, 1 update, 0 deletes\n")
        expectEqual(
            project.read("migrations/0001-release-1-1.yml").map { String(decoding: $0, as: UTF8.self) },
            """
            # 0001-release-1-1: generated by seedkit new-migration from seeds/releases/1.0.sqlite
            insert:
              items:
                - { name: "Third item", quantity: 3 }
            update:
              items:
                - key: "First item"
                  from: { quantity: 1 }
                  to: { quantity: 5 }

            """)
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
        #expect(
            check.stdout.hasPrefix(
                "seeds/releases/1.0.sqlite: applied 0001-release-1-1; converges with a fresh build\n"))
        #expect(check.stdout.hasSuffix("1 old seed converges\n"))
        // The migrations folder's README is not read as a migration.
        try expectEqual(
            project.seedkit("status", "seeds/releases/1.0.sqlite").stdout, "0001-release-1-1              pending\n")
    }

    @Test func theCIWorkflowsBuildStepAnnotatesFixtureErrors() throws {
        let project = try emptyProject()
        try expectEqual(project.seedkit("init").status, 0)
        let workflow = String(decoding: try #require(project.read(".github/workflows/seedkit.yml")), as: UTF8.self)
        #expect(workflow.contains("        run: seedkit build --format github\n"))
        #expect(workflow.contains("seedkit check-upgrade \"${shipped[@]}\""))
        // What that step prints on a broken fixture: an annotation on the line at fault.
        try project.write("seeds/data/items.csv", "name,quantity\nFirst item,1\nSecond item,-2\n")
        let result = try project.seedkit("build", "--format", "github")
        expectEqual(result.status, 1)
        #expect(result.stdout.hasPrefix("::error file=seeds/data/items.csv,line=3,col=2"), "\(result)")
        #expect(!project.exists("build/seed.sqlite"))
    }

    @Test func theCIWorkflowsCheckUpgradeStepRunsOnEveryShippedSeedOrSaysThereIsNone() throws {
        let project = try emptyProject()
        try expectEqual(project.seedkit("init").status, 0)
        let workflow = String(decoding: try #require(project.read(".github/workflows/seedkit.yml")), as: UTF8.self)
        let script = try workflowStep("seedkit check-upgrade", in: workflow)
        let none = try runStep(script, in: project)
        expectEqual(none.status, 0, "\(none)")
        expectEqual(none.stdout, "no shipped seeds yet\n")
        try expectEqual(project.seedkit("build", "--output", "seeds/releases/1.0.sqlite").status, 0)
        // the second item is gone, with no migration
        try project.write("seeds/data/items.csv", "name,quantity\nFirst item,1\n")
        let stale = try runStep(script, in: project)
        expectEqual(stale.status, 1, "\(stale)")
        #expect(stale.stdout.contains("seeds/releases/1.0.sqlite: "))
    }

    /// The review step writes into the job's summary what a reviewer of the pull request needs: the
    /// seed's rows against the newest seed that shipped (by version: 1.10 after 1.9), and what the
    /// migrations do to a store of it, without writing to that seed.
    @Test func theCIWorkflowsReviewStepWritesTheSeedsChangesIntoTheJobSummary() throws {
        let project = try emptyProject()
        try expectEqual(project.seedkit("init").status, 0)
        let workflow = String(decoding: try #require(project.read(".github/workflows/seedkit.yml")), as: UTF8.self)
        let script = try workflowStep("seedkit review", in: workflow)
        let summary = project.path("summary.md")
        let environment = ["GITHUB_STEP_SUMMARY": summary]
        let unbuilt = try runStep(script, in: project, environment: environment)
        expectEqual(unbuilt.status, 0, "\(unbuilt)")
        try expectEqual(String(contentsOfFile: summary, encoding: .utf8), "no seed was built (see seedkit build)\n")
        try expectEqual(project.seedkit("build").status, 0)
        try FileManager.default.removeItem(atPath: summary)
        try expectEqual(runStep(script, in: project, environment: environment).status, 0)
        try expectEqual(String(contentsOfFile: summary, encoding: .utf8), "no shipped seed to compare with yet\n")

        try expectEqual(project.seedkit("build", "--output", "seeds/releases/1.9.sqlite").status, 0)
        try project.write("seeds/data/items.csv", "name,quantity\nFirst item,1\nSecond item,5\n")
        try expectEqual(
            project.seedkit("new-migration", "release-1-10", "--from", "seeds/releases/1.9.sqlite").status, 0)
        try expectEqual(project.seedkit("build", "--output", "seeds/releases/1.10.sqlite").status, 0)
        try project.write("seeds/data/items.csv", "name,quantity\nFirst item,1\nSecond item,7\nThird item,3\n")
        try expectEqual(
            project.seedkit("new-migration", "release-1-11", "--from", "seeds/releases/1.10.sqlite").status, 0)
        try expectEqual(project.seedkit("build").status, 0)
        let shipped = try #require(project.read("seeds/releases/1.10.sqlite"))
        try FileManager.default.removeItem(atPath: summary)
        let review = try runStep(script, in: project, environment: environment)
        expectEqual(review.status, 0, "\(review)")
        expectEqual(review.stdout, "")
        try expectEqual(
            String(contentsOfFile: summary, encoding: .utf8),
            """
            ### The seed against seeds/releases/1.10.sqlite

            | table | change | key | column | old | new |
            |---|---|---|---|---|---|
            | items | added | Third item | quantity |  | 3 |
            | items | changed | Second item | quantity | 5 | 7 |

            ### What the migrations do to a store of seeds/releases/1.10.sqlite

            ```
            would apply 0002-release-1-11: 1 inserted, 1 updated
              inserted        items 'Third item'
              updated         items 'Second item': quantity 5 → 7
            dry run: nothing was written to seeds/releases/1.10.sqlite
            ```

            """)
        expectEqual(project.read("seeds/releases/1.10.sqlite"), shipped)
    }

    /// The workflow installs the CLI as the README says to, with seedkit's own `make install`, from
    /// the checkout SwiftPM resolves for the project (scripts/check-install.sh runs that line
    /// against this repository's Makefile), unless the cache step restored it, keyed on the pins.
    @Test func theCIWorkflowInstallsSeedkitWithMakeInstall() throws {
        let project = try emptyProject()
        try expectEqual(project.seedkit("init").status, 0)
        let workflow = String(decoding: try #require(project.read(".github/workflows/seedkit.yml")), as: UTF8.self)
        let step = try #require(workflow.range(of: "      - name: Install seedkit\n"))
        let block = try #require(workflow.range(of: "        run: |\n", range: step.upperBound..<workflow.endIndex))
        let script = workflow[block.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
            .prefix { $0.hasPrefix("          ") }.map { String($0.dropFirst(10)) }
        expectEqual(
            script,
            [
                "apt-get update -qq && apt-get install -y -qq libsqlite3-dev zlib1g-dev libssl-dev make git",
                "if [ -x /usr/local/bin/seedkit ]; then",
                "  echo \"seedkit $(/usr/local/bin/seedkit --version), from the cache\"",
                "elif [ -f Package.swift ]; then",
                "  swift package resolve",
                "  make -C .build/checkouts/seedkit install PREFIX=/usr/local",
                "elif [ -n \"$SEEDKIT_GIT_URL\" ]; then",
                "  source=$(mktemp -d)",
                "  git clone -q --depth 1 \"$SEEDKIT_GIT_URL\" \"$source\"",
                "  make -C \"$source\" install PREFIX=/usr/local",
                "else",
                "  echo \"::error::this repository is not a Swift package: set SEEDKIT_GIT_URL in .github/workflows/seedkit.yml to the Git URL you install seedkit from\"",
                "  exit 1",
                "fi",
            ])
        // A project in a Swift package is told nothing about SEEDKIT_GIT_URL: the package gives seedkit.
        let app = try emptyProject()
        try app.write("Package.swift", "// swift-tools-version: 6.1\n")
        let initialized = try app.seedkit("init")
        expectEqual(initialized.status, 0, "\(initialized)")
        #expect(!initialized.stdout.contains("SEEDKIT_GIT_URL"), "\(initialized)")
        // The steps after it call `seedkit` by name: PREFIX/bin must be on the container's PATH.
        #expect(workflow.contains("    container: swift:"))
        // The installed CLI is cached between runs, keyed on what pins its version.
        let cache = try #require(workflow.range(of: "      - name: Cache seedkit\n"))
        #expect(cache.upperBound < step.lowerBound, "the cache step comes before the install")
        #expect(
            workflow.contains("        uses: actions/cache@v4\n        with:\n          path: /usr/local/bin/seedkit\n")
        )
        #expect(
            workflow.contains(
                "key: seedkit-${{ runner.os }}-${{ hashFiles('Package.resolved') }}-${{ env.SEEDKIT_GIT_URL }}"))
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let makefile = try String(contentsOf: root.appendingPathComponent("Makefile"), encoding: .utf8)
        #expect(makefile.contains("\ninstall:\n") && makefile.contains("\nPREFIX ?= /usr/local\n"))
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("make install PREFIX="), "the README's install section shows make install")
    }

    @Test(arguments: [
        (
            "seeds/seedkit.yml",
            "seeds/seedkit.yml: error: already exists; seedkit init never overwrites anything, so nothing was written [2100]"
        ),
        (
            ".github/workflows/seedkit.yml",
            ".github/workflows/seedkit.yml: error: already exists; seedkit init never overwrites anything, so nothing was written [2100]"
        ),
        (
            "seeds/data/items.csv",
            "seeds/data/items.csv: error: already exists; seedkit init never overwrites anything, so nothing was written [2100]"
        ),
        (
            "migrations/0001-other-tool.sql",
            "migrations: error: already holds files, which seedkit would read as its migrations; seedkit init never overwrites anything, so nothing was written [2100]"
        ),
        (
            "seeds",
            "seeds: error: already exists and is not a folder; seedkit init never overwrites anything, so nothing was written [2100]"
        ),
    ])
    func initRefusesWhenAnythingIsInTheWayAndWritesNothing(existing: String, message: String) throws {
        let project = try emptyProject()
        try project.write(existing, "someone's own file\n")
        try project.write("README.md", "the user's project\n")
        let before = tree(project.root)
        let result = try project.seedkit("init")
        expectEqual(result.status, 2, "\(result)")
        expectEqual(result.stderr, message + "\n")
        expectEqual(result.stdout, "")
        expectEqual(tree(project.root), before)
    }

    @Test func initListsEveryPathInTheWayIncludingADanglingLink() throws {
        let project = try emptyProject()
        try project.write("seeds/schema.sql", "CREATE TABLE mine (id INTEGER PRIMARY KEY);\n")
        try FileManager.default.createDirectory(at: project.url("seeds/releases"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: project.path("seeds/releases/README.md"), withDestinationPath: "nowhere.md")
        let before = tree(project.root)
        let result = try project.seedkit("init", ".")
        expectEqual(result.status, 2)
        expectEqual(
            result.stderr,
            """
            seeds/schema.sql: error: already exists; seedkit init never overwrites anything, so nothing was written [2100]
            seeds/releases/README.md: error: already exists; seedkit init never overwrites anything, so nothing was written [2100]

            """)
        expectEqual(tree(project.root), before)
    }

    /// Issue 44: init wrote no `.gitignore`, so `git add -A` committed `build/`.
    ///
    /// It writes one, and a project's own is kept as it is (never in the way of init).
    @Test func initWritesAGitignoreAndKeepsOneThatIsThere() throws {
        let project = try emptyProject()
        expectEqual(try project.seedkit("init", "fresh").status, 0)
        let ignore = String(decoding: project.read("fresh/.gitignore") ?? Data(), as: UTF8.self)
        #expect(ignore.contains("\nbuild/\n") && ignore.contains("\n.build/\n"), "\(ignore)")
        try project.write("app/.gitignore", "DerivedData/\n")
        let kept = try project.seedkit("init", "app")
        expectEqual(kept.status, 0, "\(kept)")
        #expect(!kept.stdout.contains(".gitignore"), "\(kept)")
        expectEqual(project.read("app/.gitignore"), Data("DerivedData/\n".utf8))
    }

    @Test func initIntoAFolderThatDoesNotExistCreatesIt() throws {
        let project = try emptyProject()
        let result = try project.seedkit("init", "apps/Book Store")
        expectEqual(result.status, 0, "\(result)")
        #expect(result.stdout.hasPrefix("wrote apps/Book Store/seeds/seedkit.yml              the manifest"))
        #expect(result.stdout.contains("\nnext:\n  cd 'apps/Book Store'\n"))
        expectEqual(
            Set(tree(project.url("apps/Book Store")).keys),
            [
                "seeds", "seeds/seedkit.yml", "seeds/schema.sql", "seeds/data", "seeds/data/items.csv",
                "seeds/releases",
                "seeds/releases/README.md", "migrations", "migrations/README.md", ".github", ".github/workflows",
                ".github/workflows/seedkit.yml", ".gitignore",
            ])
        let build = try runSeedkit(["build"], in: project.url("apps/Book Store"))
        expectEqual(build.status, 0, "\(build)")
        // A second init there refuses and lists the migrations folder and all six files.
        let again = try project.seedkit("init", "apps/Book Store")
        expectEqual(again.status, 2)
        expectEqual(again.stderr.split(separator: "\n").count, 7)
        #expect(
            again.stderr.hasPrefix(
                "apps/Book Store/migrations: error: already holds files, which seedkit would read as its migrations;"))
        #expect(again.stderr.contains("\napps/Book Store/seeds/seedkit.yml: error: already exists"))
    }

    /// `init --format json` (docs/reference.md#output-formats): the files written and the next
    /// steps as the human text lists them; an error is a JSON document on stdout too.
    @Test func initPrintsItsReportAsJSON() throws {
        let project = try emptyProject()
        let result = try project.seedkit("init", "app", "--format", "json")
        expectEqual(result.status, 0, "\(result)")
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
        expectEqual(document["folder"] as? String, "app")
        let written = try #require(document["written"] as? [[String: String]])
        expectEqual(
            written.first,
            ["path": "app/seeds/seedkit.yml", "purpose": "the manifest: tables, their fixtures, keys and rules"])
        expectEqual(written.count, 7)
        let next = try #require(document["next"] as? [String])
        expectEqual(next.first, "cd app")
        #expect(
            next.contains(
                "seedkit check-upgrade seeds/releases/*.sqlite   # every shipped seed upgrades to a fresh build"))
        let again = try project.seedkit("init", "app", "--format", "json")
        expectEqual(again.status, 2, "\(again)")
        let refusal = try #require(
            try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any], "\(again)")
        expectEqual((refusal["errors"] as? [Any])?.count, 7)
    }

    @Test func initOverAFileRefusesIt() throws {
        let project = try emptyProject()
        try project.write("notes.txt", "mine\n")
        let result = try project.seedkit("init", "notes.txt")
        expectEqual(result.status, 2)
        expectEqual(result.stderr, "notes.txt: error: is a file, not a folder; nothing was written [2100]\n")
        expectEqual(project.read("notes.txt"), Data("mine\n".utf8))
    }

    /// The example's model with uniqueness constraints on Book (title) and BookCategory (name); Page has none.
    private func writeModel(_ project: TemporaryProject) throws {
        let source = coreDataExample.appendingPathComponent("BookStore.xcdatamodeld")
        try FileManager.default.createDirectory(at: project.url("App"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: source, to: project.url("App/BookStore.xcdatamodeld"))
        let contents = "App/BookStore.xcdatamodeld/BookStore.xcdatamodel/contents"
        var xml = String(decoding: try #require(project.read(contents)), as: UTF8.self)
        for (entity, key) in [("Book", "title"), ("BookCategory", "name")] {
            let opening = try #require(xml.range(of: "<entity name=\"\(entity)\""))
            let closing = try #require(xml.range(of: "</entity>", range: opening.upperBound..<xml.endIndex))
            xml.insert(
                contentsOf:
                    "    <uniquenessConstraints>\n            <uniquenessConstraint>\n                <constraint value=\"\(key)\"/>\n            </uniquenessConstraint>\n        </uniquenessConstraints>\n    ",
                at: closing.lowerBound)
        }
        try project.write(contents, xml)
    }

    @Test func coreDataInitScaffoldsTheModelsEntitiesAndTheReleaseWorkflowConverges() throws {
        let project = try emptyProject()
        try writeModel(project)
        let template = coreDataExample.appendingPathComponent("empty.sqlite").path
        let initialized = try project.seedkit(
            "init", "--coredata", "App/BookStore.xcdatamodeld", "--template", template)
        expectEqual(initialized.status, 0, "\(initialized)")
        #expect(
            initialized.stdout.hasPrefix(
                """
                wrote seeds/seedkit.yml              the manifest: the model, the template, one table per entity
                wrote seeds/empty.sqlite             the template: your app's empty store, copied from --template (never changed)
                wrote seeds/data/Book.csv            the fixture of entity Book (header only: add one row per object)
                wrote seeds/data/BookCategory.csv    the fixture of entity BookCategory (header only: add one row per object)
                wrote seeds/data/Page.csv            the fixture of entity Page (header only: add one row per object)

                """))
        expectEqual(
            project.read("seeds/seedkit.yml").map { String(decoding: $0, as: UTF8.self) },
            """
            # The seed's manifest for a Core Data store: seedkit build reads it (paths are relative to this file).
            # Tables are the model's entities; a fixture's columns are attributes and to-one relationships.
            model: ../App/BookStore.xcdatamodeld
            template: empty.sqlite        # the empty store your app creates with this model (never changed)
            output: ../build/seed.sqlite
            tables:
              Book:
                file: data/Book.csv
                key: title                 # the model's uniqueness constraint
                refs:
                  category: BookCategory.name
              BookCategory:
                file: data/BookCategory.csv
                key: name                  # the model's uniqueness constraint
              Page:
                file: data/Page.csv
                # No key: the model has no uniqueness constraint on Page. Migrations find a row in a
                # user's store by its key, and without one that is Z_PK, which differs from store to store;
                # name what identifies a Page across releases
                # (key: text, or a list: key: [text, book]).
                refs:
                  book: Book.title

            """)
        expectEqual(project.read("seeds/data/Book.csv"), Data("price,title,category\n".utf8))
        expectEqual(project.read("seeds/data/BookCategory.csv"), Data("name\n".utf8))
        expectEqual(project.read("seeds/data/Page.csv"), Data("text,book\n".utf8))
        expectEqual(
            project.sha256("seeds/empty.sqlite"), FileManager.default.contents(atPath: template).map { SHA256.hex($0) })

        let empty = try project.seedkit("build")
        expectEqual(empty.status, 0, "\(empty)")
        #expect(empty.stdout.hasPrefix("built build/seed.sqlite: 3 tables, 0 rows"))

        try project.write("seeds/data/BookCategory.csv", "name\nFiction\nBiography\n")
        try project.write(
            "seeds/data/Book.csv", "price,title,category\n10,The first book,Fiction\n15,The second book,Biography\n")
        try project.write("seeds/data/Page.csv", "text,book\nOnce upon a time,The first book\n")
        let release = try project.seedkit("build", "--output", "seeds/releases/1.0.sqlite")
        expectEqual(release.status, 0, "\(release)")
        try project.write(
            "seeds/data/Book.csv",
            "price,title,category\n11,The first book,Fiction\n15,The second book,Biography\n7,The third book,Fiction\n")
        let migration = try project.seedkit("new-migration", "release 1.1", "--from", "seeds/releases/1.0.sqlite")
        expectEqual(migration.status, 0, "\(migration)")
        expectEqual(migration.stdout, "wrote migrations/0001-release-1-1.yml: 1 insert, 1 update, 0 deletes\n")
        expectEqual(
            project.read("migrations/0001-release-1-1.yml").map { String(decoding: $0, as: UTF8.self) },
            """
            # 0001-release-1-1: generated by seedkit new-migration from seeds/releases/1.0.sqlite
            insert:
              Book:
                - { title: "The third book", category: "Fiction", price: 7.0 }
            update:
              Book:
                - key: "The first book"
                  from: { price: 10.0 }
                  to: { price: 11.0 }

            """)
        // Page has no natural key: check-upgrade adds no user row there (it would need a Z_PK of
        // its own) instead of refusing the store it made inconsistent itself, and says so.
        // BookCategory, all key, gets a user row under a new name.
        let check = try project.seedkit("check-upgrade", "seeds/releases/1.0.sqlite")
        expectEqual(check.status, 0, "\(check)")
        expectEqual(
            check.stdout,
            """
            seeds/releases/1.0.sqlite: applied 0001-release-1-1; converges with a fresh build
              Book: 2 rows the release touched as in a fresh build (1 inserted, 1 updated)
              ok: user row Book 'The third book'.price = 8.0 kept
              ok: user edit Book 'The first book'.price = 12.0 kept
              ok: user row Book 'The first book (added by the user)'.price = 13.0 kept
              ok: user row BookCategory 'Fiction (added by the user)'.name = "Fiction (added by the user)" kept
              not checked: Page: no user row was added: its rows are keyed by the primary key Core Data assigns: a user's own object cannot be found again by key
            1 old seed converges

            """)
    }

    /// Issue 42 (pegase's `Rubric.total`, `Transaction.solde`): a transient attribute is never
    /// stored, so init leaves it out of the fixture, and a fixture that names it is told so.
    @Test func coreDataInitLeavesTransientAttributesOut() throws {
        let project = try emptyProject()
        try project.write(
            "Shop.xcdatamodel/contents",
            """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Rubric" representedClassName="Rubric" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                    <attribute name="total" optional="YES" transient="YES" attributeType="Double" defaultValueString="0.0"/>
                </entity>
            </model>
            """)
        let result = try project.seedkit("init", "--coredata", "Shop.xcdatamodel")
        expectEqual(result.status, 0, "\(result)")
        expectEqual(project.read("seeds/data/Rubric.csv").map { String(decoding: $0, as: UTF8.self) }, "name\n")
    }

    @Test func coreDataInitCoversAbstractEntitiesCompoundKeysUnsupportedTypesAndManyToMany() throws {
        let project = try emptyProject()
        try project.write(
            "Shop.xcdatamodel/contents",
            """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Item" representedClassName="Item" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                    <attribute name="shelf" attributeType="Integer 16"/>
                    <attribute name="photo" optional="YES" attributeType="Transformable"/>
                    <relationship name="location" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Location" inverseName="items" inverseEntity="Location"/>
                    <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="items" inverseEntity="Tag"/>
                    <uniquenessConstraints>
                        <uniquenessConstraint>
                            <constraint value="name"/>
                            <constraint value="shelf"/>
                        </uniquenessConstraint>
                    </uniquenessConstraints>
                </entity>
                <entity name="Location" representedClassName="Location" isAbstract="YES" syncable="YES">
                    <attribute name="summary" attributeType="String"/>
                    <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="location" inverseEntity="Item"/>
                    <uniquenessConstraints>
                        <uniquenessConstraint>
                            <constraint value="summary"/>
                        </uniquenessConstraint>
                    </uniquenessConstraints>
                </entity>
                <entity name="Shop" representedClassName="Shop" parentEntity="Location" syncable="YES">
                    <attribute name="aisle" optional="YES" attributeType="String"/>
                    <relationship name="note" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Note" inverseName="shop" inverseEntity="Note"/>
                </entity>
                <entity name="Note" representedClassName="Note" syncable="YES">
                    <attribute name="text" optional="YES" attributeType="String"/>
                    <relationship name="shop" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Shop" inverseName="note" inverseEntity="Shop"/>
                </entity>
                <entity name="Tag" representedClassName="Tag" syncable="YES">
                    <attribute name="label" attributeType="String"/>
                    <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="tags" inverseEntity="Item"/>
                    <uniquenessConstraints>
                        <uniquenessConstraint>
                            <constraint value="label"/>
                        </uniquenessConstraint>
                    </uniquenessConstraints>
                </entity>
            </model>
            """)
        let result = try project.seedkit("init", "--coredata", "Shop.xcdatamodel")
        expectEqual(result.status, 0, "\(result)")
        // Location is abstract (no fixture; Shop inherits its summary and its uniqueness
        // constraint); Item's key is compound; Note's destination Shop has a key, Shop's to Note has none.
        expectEqual(
            project.read("seeds/seedkit.yml").map { String(decoding: $0, as: UTF8.self) },
            """
            # The seed's manifest for a Core Data store: seedkit build reads it (paths are relative to this file).
            # Tables are the model's entities; a fixture's columns are attributes and to-one relationships.
            model: ../Shop.xcdatamodel
            template: empty.sqlite        # not here yet: run the app once with an empty store, copy its .sqlite here
            output: ../build/seed.sqlite
            tables:
              # Location is abstract: its rows are its sub-entities' rows
              Item:
                file: data/Item.csv
                key: [name, shelf]         # the model's uniqueness constraint
                refs:
                  location: Location.summary
                # tags (many-to-many to Tag) can be set here: add a column tags listing Tag keys, and refs: { tags: Tag.label }
              Shop:
                file: data/Shop.csv
                key: summary               # the model's uniqueness constraint
                # note holds a Note by its key: once Note has a one-column key, add refs: { note: Note.<key> }
              Note:
                file: data/Note.csv
                # No key: the model has no uniqueness constraint on Note. Migrations find a row in a
                # user's store by its key, and without one that is Z_PK, which differs from store to store;
                # name what identifies a Note across releases
                # (key: text, or a list: key: [text, shop]).
                refs:
                  shop: Shop.summary
              Tag:
                file: data/Tag.csv
                key: label                 # the model's uniqueness constraint

            """)
        expectEqual(project.listing("seeds/data"), ["Item.csv", "Note.csv", "Shop.csv", "Tag.csv"])
        // A Transformable (photo) is a column: its bytes are carried as a store holds them.
        expectEqual(project.read("seeds/data/Item.csv"), Data("name,shelf,photo,location\n".utf8))
        expectEqual(project.read("seeds/data/Shop.csv"), Data("summary,aisle,note\n".utf8))
        // The manifest reads back against the model: what build misses is only the template.
        let build = try project.seedkit("build")
        expectEqual(build.status, 2)
        expectEqual(build.stderr, "seeds/empty.sqlite: error: the template store does not exist [2100]\n")
    }

    @Test func coreDataInitWithoutATemplateSaysWhereItGoes() throws {
        let project = try emptyProject()
        try writeModel(project)
        let result = try project.seedkit("init", "--coredata", "App/BookStore.xcdatamodeld/BookStore.xcdatamodel")
        expectEqual(result.status, 0, "\(result)")
        #expect(
            result.stdout.contains(
                "\n  copy the empty store your app creates with this model to seeds/empty.sqlite (run the app once, let it quit)\n"
            ))
        #expect(!project.exists("seeds/empty.sqlite"))
        let manifest = String(decoding: try #require(project.read("seeds/seedkit.yml")), as: UTF8.self)
        #expect(manifest.contains("\nmodel: ../App/BookStore.xcdatamodeld/BookStore.xcdatamodel\n"))
        #expect(
            manifest.contains(
                "\ntemplate: empty.sqlite        # not here yet: run the app once with an empty store, copy its .sqlite here\n"
            ))
        // Build says what is missing; once the template is there, it builds.
        try expectEqual(project.seedkit("build").status, 2)
        try FileManager.default.copyItem(
            at: coreDataExample.appendingPathComponent("empty.sqlite"), to: project.url("seeds/empty.sqlite"))
        try expectEqual(project.seedkit("build").status, 0)
    }

    @Test func coreDataInitRefusesAModelOrTemplateItCannotUseAndWritesNothing() throws {
        let project = try emptyProject()
        try writeModel(project)
        // Truncated inside an element (Foundation's parser on Linux calls that a success), and a mismatched tag.
        try project.write(
            "App/Broken.xcdatamodel/contents",
            "<?xml version=\"1.0\"?>\n<model>\n  <entity name=\"Book\">\n    <attribute name=\"title\" attributeType=\"String\"\n</model>\n"
        )
        try project.write(
            "App/Mismatched.xcdatamodel/contents",
            "<?xml version=\"1.0\"?>\n<model>\n  <entity name=\"Book\"></entity>\n</modelx>\n")
        try project.write("App/NotCoreData.sqlite", Data())
        try project.database("App/Plain.sqlite").write { db in
            try db.execute(sql: "CREATE TABLE books (id INTEGER PRIMARY KEY)")
        }
        let before = tree(project.root)

        let missing = try project.seedkit("init", "--coredata", "App/Missing.xcdatamodeld")
        expectEqual(missing.status, 2)
        expectEqual(
            missing.stderr,
            "App/Missing.xcdatamodeld: error: no such model (--coredata names an .xcdatamodeld or .xcdatamodel); nothing was written [2100]\n"
        )

        let broken = try project.seedkit("init", "--coredata", "App/Broken.xcdatamodel")
        expectEqual(broken.status, 2)
        expectEqual(
            broken.stderr,
            "App/Broken.xcdatamodel/contents:3: error: not a Core Data model: the <entity> opened here is never closed (is the file truncated?) [2100]\n"
        )
        let mismatched = try project.seedkit("init", "--coredata", "App/Mismatched.xcdatamodel")
        expectEqual(mismatched.status, 2)
        #expect(mismatched.stderr.hasPrefix("App/Mismatched.xcdatamodel/contents:"), "\(mismatched)")
        #expect(
            mismatched.stderr.hasSuffix(
                ": error: not a Core Data model: a closing tag that does not match the element it closes [2100]\n"))

        let wrongKind = try project.seedkit("init", "--coredata", "App/NotCoreData.sqlite")
        expectEqual(wrongKind.status, 2)
        expectEqual(
            wrongKind.stderr,
            "App/NotCoreData.sqlite: error: model: must name an .xcdatamodel, .xcdatamodeld, or a compiled .mom or .momd [2100]\n"
        )

        let plainTemplate = try project.seedkit(
            "init", "--coredata", "App/BookStore.xcdatamodeld", "--template", "App/Plain.sqlite")
        expectEqual(plainTemplate.status, 2)
        expectEqual(
            plainTemplate.stderr,
            "App/Plain.sqlite: error: not a Core Data store (no Z_PRIMARYKEY and Z_METADATA): --template names the empty store your app creates; nothing was written [2100]\n"
        )

        let noTemplate = try project.seedkit(
            "init", "--coredata", "App/BookStore.xcdatamodeld", "--template", "App/none.sqlite")
        expectEqual(noTemplate.status, 2)
        #expect(noTemplate.stderr.hasPrefix("App/none.sqlite: error: cannot read the template"))

        let templateAlone = try project.seedkit("init", "--template", "App/Plain.sqlite")
        expectEqual(templateAlone.status, 2)
        #expect(templateAlone.stderr.contains("--template goes with --coredata MODEL"))

        expectEqual(tree(project.root), before)
    }
}
