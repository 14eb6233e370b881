public import Foundation

/// What a vault says about itself before it is unlocked: its store id (which names its key-cache
/// entry and its registration with the system service) and its mode (which chooses the way in). Read in
/// one pass over the database. Unauthenticated: nothing in it is trusted until a key opens the
/// vault and the slot-table MAC confirms the mode; a wrong store id finds no key that opens it.
public struct VaultHeader: Sendable, Equatable {
    public let storeID: UUID
    public let mode: VaultMode

    public init(storeID: UUID, mode: VaultMode) {
        self.storeID = storeID
        self.mode = mode
    }
}
