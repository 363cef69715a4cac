// Generated from docs/swiftdata.md by Tests/seedkitTests/HelpTopicTests.swift: do not edit; after
// an edit of docs/, SEEDKIT_WRITE_HELP_TOPICS=1 swift test --filter HelpTopicTests writes it again.
extension HelpTopic {
    static let swiftDataSections: [String: String] = [
        #"""
        What stays refused
        """#: #"""
        ## What stays refused

        - **Updates whose changed-properties mask cannot be vouched for.** The writer computes
          `ZCOLUMNS` by the settled rule (to-one relationships, then attributes, then to-many
          relationships, each by name; `⌈n/8⌉` bytes, property `i` at `0x80 >> (i % 8)` of byte `i / 8`)
          and refuses, naming the entity and why, an entity with a parent or sub-entities, one with a
          derived property (a transient attribute is never stored and takes no bit: pegase's store records
          Transaction's `sousOperations` at bit 11, which it is only with the transient `solde` left out), and one with a relationship to an entity that has a parent or
          sub-entities (see "What the stores leave open"). A composite attribute's elements count one
          each, the composite not; a to-many to the entity itself after the other to-manys, if at all.
        - **Updates whose bytes depend on a place no store shows** (`CoreDataDialect+HistoryMasks.swift`):
          the mask is worked out with a composite attribute's elements at the composite's name (in their
          order or by name), by their own names, after or before the other attributes; with a to-one to
          the entity itself by name among the to-ones or after them; with a to-many to itself after the
          other to-manys or not counted at all (and, whose inverse is not a to-one, by name among them);
          with two or more to-manys to itself in either order. An update whose bytes (width included)
          differ between them is refused, naming the property: in practice, a change of an attribute of
          an entity with a composite (`Folder.name`, `Shelf.kind`; the relationships of the same entity
          are written), of a to-many to the entity itself (`Folder.folders`: a folder moved), of a to-one
          to the entity itself or one sorting after it, unless it is the last to-one, and any update of
          an entity whose width depends on whether its to-manys to itself count (8, 16, … other
          properties).
        - **Deletes when `ACHANGE` has tombstone columns**: which tombstone column holds which
          attribute is not settled here (RMAdminStore and knowledgeC keep tombstones, `ZTOMBSTONE0…3`;
          their models' preserved attributes were not compared with them).
        - Stores whose history tables differ from the DDL above (missing columns, unknown columns), or
          that have only some of them.
        - A SQL migration into a store that tracks history: seedkit cannot tell what it changed.
        - A store whose model seedkit does not have: a seed built before seedkit recorded the model's
          properties, migrated by an app (or the CLI with no manifest and no `Z_MODELCACHE`).
        - Stores mirrored to CloudKit (`ANSCK…` tables, e.g. `ANSCKRECORDMETADATA`), unless
          `--allow-cloudkit` (`SeedMigrator.Options.allowsCloudKit`): `NSPersistentCloudKitContainer`
          exports what history records, so the same seed rows, written on every device that migrates
          its own store, would be exported by each and duplicate in the user's CloudKit database. Allow
          it only when the entities seedkit writes are not mirrored, or a single device runs it.
        - A build into a template that tracks history and already holds rows.
        - A build into a template whose CloudKit mirroring tables (`ANSCK…`) hold rows, whatever the
          options: they are the record metadata of the device the store was copied from, which every
          user's store would start with. `init --coredata STORE` empties them.
        - A build into a template seedkit has written (its ledger lists migrations: a seed, or an app's
          store that installed one), which every seed built from it would claim. `init --coredata
          STORE` takes seedkit's tables out.

        `--without-history` (`SeedMigrator.Options.allowsMissingHistory`, `SeedBuilder.allowsMissingHistory`)
        writes the rows with no history entries; none of the refusals above applies then, but the last two.
        """#
    ]
}
