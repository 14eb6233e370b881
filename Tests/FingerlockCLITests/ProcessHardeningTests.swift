import FingerlockCLI
import SafeFiles
import Testing

@Suite struct ProcessHardeningTests {
    @Test func theProcessIsNoLongerDumpable() {
        ProcessHardening.apply()
        #expect(!ProcessHardening.isDumpable)
    }
}
