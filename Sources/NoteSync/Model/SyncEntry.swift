/// What a machine remembers of one note between syncs: the versions it last settled on (its
/// heads). More than one when versions with the same content met; the next change supersedes all.
struct SyncEntry: Codable, Sendable, Equatable {
    var heads: [VersionID]

    enum CodingKeys: String, CodingKey {
        case heads = "h"
    }
}
