import Testing
import WPTestThreads
import WPTime

@Suite(.ownThreads, .timeLimit(.minutes(2))) struct CivilDateTests {
    @Test func unixSecondsFallInTheirFlooredDay() {
        #expect(CivilDate.days(containing: 0) == 0)
        #expect(CivilDate.days(containing: 86_399) == 0)
        #expect(CivilDate.days(containing: 86_400) == 1)
        #expect(CivilDate.days(containing: -1) == -1, "1969-12-31, not day 0")
        #expect(CivilDate.days(containing: -86_400) == -1)
        #expect(CivilDate.days(containing: -86_401) == -2)
        #expect(CivilDate.text(days: CivilDate.days(containing: 1_795_315_039)) == "2026-11-22")
    }
}
