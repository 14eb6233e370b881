import Foundation

/// Random passwords for `generate`: each character drawn uniformly (the standard library's
/// `random(in:)` rejects the modulo bias) from the kernel's CSPRNG (`SystemRandomNumberGenerator`
/// reads getrandom), over printable ASCII without the space, or over letters and digits alone.
/// A password of 4 or more characters holds at least one character of each class (the rule most
/// sites ask); one that does not is drawn again whole, so every password that has them is equally
/// likely.
struct PasswordGenerator {
    static let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    static let digits = Array("0123456789")
    static let symbols = Array("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")

    /// pass's default.
    static let defaultLength = 25
    static let lengths = 4...1024

    var symbolsIncluded: Bool

    var alphabet: [Character] { Self.letters + Self.digits + (symbolsIncluded ? Self.symbols : []) }

    /// The classes a password of 4 or more characters holds one of each.
    var classes: [Set<Character>] {
        [Set(Self.letters.prefix(26)), Set(Self.letters.suffix(26)), Set(Self.digits)] + (symbolsIncluded ? [Set(Self.symbols)] : [])
    }

    func password(length: Int, using random: inout some RandomNumberGenerator) -> String {
        let alphabet = alphabet
        while true {
            let drawn = (0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }
            if length < classes.count || classes.allSatisfy({ !$0.isDisjoint(with: drawn) }) { return String(drawn) }
        }
    }

    func password(length: Int) -> String {
        var random = SystemRandomNumberGenerator()
        return password(length: length, using: &random)
    }

    /// log2 of how many passwords of `length` can be drawn: length × log2(alphabet), plus log2 of
    /// the share that holds every class (inclusion-exclusion over the classes left out).
    func entropyBits(length: Int) -> Double {
        let sizes = classes.map(\.count)
        let all = Double(alphabet.count)
        let bits = Double(length) * log2(all)
        guard length >= sizes.count else { return bits }
        var share = 0.0
        for mask in 0..<(1 << sizes.count) {
            // Passwords drawn only from the classes not in `mask`, signed by how many were left out.
            let left = sizes.indices.filter { mask & (1 << $0) == 0 }.map { sizes[$0] }.reduce(0, +)
            share += (mask.nonzeroBitCount % 2 == 0 ? 1.0 : -1.0) * pow(Double(left) / all, Double(length))
        }
        return bits + log2(share)
    }
}
