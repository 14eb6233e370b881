import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockCLI

/// Which note a typed name means (`NoteName`): an exact title against the start of another note's
/// id, and what a command that acts unseen may take.
@Suite(.timed) struct NoteNameTests {
    static let idNote = UUID(uuidString: "4eff0a12-0000-4000-8000-000000000001")!
    static let titledNote = UUID(uuidString: "2c9a01b3-0000-4000-8000-000000000002")!
    static let gmail = UUID(uuidString: "9b1c2d3e-0000-4000-8000-000000000003")!
    /// A note whose id starts `4eff` and another titled `4eff`, as in a few hundred real notes.
    static let notes: [(id: UUID, title: String)] = [(idNote, "bank"), (titledNote, "4EFF"), (gmail, "Gmail")]

    func resolve(_ name: String, _ naming: NoteNaming, among notes: [(id: UUID, title: String)] = notes) throws(CLIError) -> UUID {
        try NoteName(name).resolve(among: notes, naming: naming).id
    }

    func refusal(_ name: String, _ naming: NoteNaming, among notes: [(id: UUID, title: String)] = notes) -> CLIError? {
        do {
            let found = try resolve(name, naming, among: notes)
            Issue.record("\(name) resolved to \(found)")
            return nil
        } catch {
            return error
        }
    }

    @Test func anExactTitleWinsOverAShortIDStartForReading() throws {
        #expect(try resolve("4eff", .reading) == Self.titledNote)
        #expect(try resolve("4Eff", .reading) == Self.titledNote)
    }

    @Test(
        "a name that is a title and another note's id start changes neither",
        arguments: [
            NoteNaming.changing, .unattended("--yes"), .unattended("--purge"),
        ])
    func aTitleThatIsAlsoAnIDStartIsAmbiguousForChanges(_ naming: NoteNaming) throws {
        let error = try #require(refusal("4eff", naming))
        #expect(error.status == .usage)
        #expect(error.message.contains("2c9a01b3"), "\(error.message)")
        #expect(error.message.contains("4eff0a12 (bank)"), "\(error.message)")
        #expect(!error.message.contains("\n"))
    }

    @Test func unattendedActsOnlyOnAWholeTitleOrAnEightCharacterID() throws {
        #expect(try resolve("gmail", .unattended("--yes")) == Self.gmail)
        #expect(try resolve("4eff0a12", .unattended("--purge")) == Self.idNote)
        let short = try #require(refusal("9b1c", .unattended("--purge")))
        #expect(short.status == .usage)
        #expect(short.message == "\"9b1c\" is only the start of an id: --purge acts on a whole title or at least 8 characters of the id (9b1c2d3e).")
        for loose in ["gma", "mail", "gmial"] {
            let error = try #require(refusal(loose, .unattended("--yes")))
            #expect(error.status == .usage)
            #expect(error.message.contains(": --yes acts on a whole title or at least 8 characters of an id."), "\(error.message)")
        }
        // What is refused unseen is taken where the note is shown first.
        #expect(try resolve("9b1c", .changing) == Self.gmail)
        #expect(try resolve("gma", .changing) == Self.gmail)
        #expect(try NoteName("gmial").resolve(among: Self.notes, naming: .reading).loose == .typo)
    }

    @Test func anEightCharacterIDStartIsAnIDForReadingAndAmbiguousForChanges() throws {
        let decoy = UUID(uuidString: "77777777-0000-4000-8000-000000000009")!
        let notes = Self.notes + [(decoy, "4eff0a12")]
        #expect(try resolve("4eff0a12", .reading, among: notes) == Self.idNote)
        #expect(refusal("4eff0a12", .unattended("--yes"), among: notes)?.status == .usage)
        // The whole id names its note whatever a title says.
        let whole = Self.idNote.uuidString.lowercased()
        #expect(try resolve(whole, .unattended("--purge"), among: notes + [(decoy, whole)]) == Self.idNote)
    }

    @Test func severalExactTitlesAreListed() throws {
        let twin = UUID(uuidString: "5a5a5a5a-0000-4000-8000-000000000005")!
        let error = try #require(refusal("gmail", .reading, among: Self.notes + [(twin, "GMAIL")]))
        #expect(error.status == .usage)
        #expect(error.message.hasPrefix("\"gmail\" matches 2 notes by title: "), "\(error.message)")
    }

    @Test func nothingFoundIsNotFound() throws {
        #expect(refusal("zzzzqqq", .reading)?.status == .notFound)
    }
}
