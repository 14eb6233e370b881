public import Foundation
import GRDB

extension Vault {
    /// Which of `ids` name notes already in the vault, in one read (an import checks its ids
    /// before `add(_:)`, which would refuse the whole batch at the first taken one).
    public func existingNoteIDs(among ids: [UUID]) throws(VaultError) -> Set<UUID> {
        try read { db, _, _ in
            let statement = try db.makeStatement(sql: "SELECT 1 FROM notes WHERE id = ?")
            var taken = Set<UUID>()
            for id in ids where try Bool.fetchOne(statement, arguments: [id.storageKey]) == true { taken.insert(id) }
            return taken
        }
    }
}
