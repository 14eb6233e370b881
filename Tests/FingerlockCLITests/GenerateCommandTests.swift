import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockCLI

/// `generate NAME [LENGTH]`, as `pass generate`: the generator's alphabet, classes and entropy, and
/// the command in process (a new note, an existing one only when told, its history keeping the old).
@Suite(.timed, .timeLimit(.minutes(3))) struct GenerateCommandTests {
    let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb*4"]

    init() async throws {
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
    }

    func body(of title: String) async throws -> String {
        try await runner.run(["notes", "show", title, "--body"], environment: touch).stdout
    }

    @Test(arguments: [true, false])
    func passwordsAreDrawnFromTheAlphabetWithEveryClass(_ symbols: Bool) {
        let generator = PasswordGenerator(symbolsIncluded: symbols)
        let alphabet = Set(generator.alphabet)
        #expect(alphabet.count == (symbols ? 94 : 62))
        var seen = Set<Character>()
        for length in [4, 5, 25, 64] {
            for _ in 0..<200 {
                let password = generator.password(length: length)
                #expect(password.count == length)
                #expect(password.allSatisfy(alphabet.contains))
                #expect(generator.classes.allSatisfy { !$0.isDisjoint(with: password) }, "\(password)")
                seen.formUnion(password)
            }
        }
        // 200 × 98 draws reach every character of the alphabet.
        #expect(seen == alphabet)
    }

    @Test func theEntropyIsCountedExactly() {
        // log2 of the passwords with every class, by inclusion-exclusion (checked independently).
        #expect(abs(PasswordGenerator(symbolsIncluded: true).entropyBits(length: 25) - 163.774) < 0.001)
        #expect(abs(PasswordGenerator(symbolsIncluded: false).entropyBits(length: 25) - 148.837) < 0.001)
        #expect(PasswordGenerator(symbolsIncluded: true).entropyBits(length: 1024) > 6700)
    }

    @Test func aNewNameMakesANoteWhosePasswordIsItsOnlyLine() async throws {
        let made = try await runner.run(["generate", "mail/work", "32", "--no-symbols"], environment: touch)
        #expect(made.status == 0, "\(made.stderr)")
        let password = made.stdout.trimmingCharacters(in: .newlines)
        #expect(password.count == 32 && password.allSatisfy { $0.isLetter || $0.isNumber })
        #expect(made.stderr.contains("Saved as a new note \"mail/work\""), "\(made.stderr)")
        #expect(try await body(of: "mail/work") == password + "\n")
        let other = try await runner.run(["generate", "bank"], environment: touch)
        #expect(other.stdout.trimmingCharacters(in: .newlines).count == 25)
    }

    @Test func anExistingNoteChangesOnlyWhenToldAndItsHistoryKeepsTheOldPassword() async throws {
        let added = try await runner.run(["notes", "add", "--title", "github"], environment: touch, stdin: "old-secret\r\nuser: alice\n")
        #expect(added.status == 0, "\(added.stderr)")
        let refused = try await runner.run(["generate", "github"], environment: touch)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--in-place replaces its first line, --force its whole body; nothing was changed"))
        #expect(try await body(of: "github") == "old-secret\r\nuser: alice\n")

        let inPlace = try await runner.run(["generate", "github", "-i"], environment: touch)
        #expect(inPlace.status == 0, "\(inPlace.stderr)")
        let password = inPlace.stdout.trimmingCharacters(in: .newlines)
        #expect(try await body(of: "github") == password + "\r\nuser: alice\n")
        let history = try await runner.run(["notes", "history", "github", "--show", "1"], environment: touch)
        #expect(history.stdout.contains("old-secret"), "\(history.stdout)")

        let forced = try await runner.run(["generate", "github", "-f", "12"], environment: touch)
        #expect(try await body(of: "github") == forced.stdout)
        #expect(forced.stdout.count == 13)
    }

    @Test func badLengthsAndFlagsAreRefusedBeforeAnyUnlock() async throws {
        for arguments in [["generate", "x", "3"], ["generate", "x", "1025"], ["generate", "x", "-i", "-f"], ["generate", "x", "ten"]] {
            let refused = try await runner.run(arguments)
            #expect(refused.status == 64, "\(arguments): \(refused.stderr)")
        }
    }
}
