import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@Injectable expansion")
struct InjectableMacroTests {
  @Test("one defaulted parameter per stored let with a type and no value")
  func storedLets() {
    assertExpansion(
      """
      @Injectable
      final class ViewModel {
        let networkService: NetworkServiceProtocol
        let a, b: Int
        var count = 0
        static let shared: Int
        let constant: Int = 1
      }
      """,
      expandedSource: """
        final class ViewModel {
          let networkService: NetworkServiceProtocol
          let a, b: Int
          var count = 0
          static let shared: Int
          let constant: Int = 1

          init(
            networkService: NetworkServiceProtocol = ForgeInject.ForgeInjection.resolve("ViewModel.networkService", fileID: "TestModule/test.swift", line: 3),
            a: Int = ForgeInject.ForgeInjection.resolve("ViewModel.a", fileID: "TestModule/test.swift", line: 4),
            b: Int = ForgeInject.ForgeInjection.resolve("ViewModel.b", fileID: "TestModule/test.swift", line: 4)
          ) {
            self.networkService = networkService
            self.a = a
            self.b = b
          }
        }
        """
    )
  }

  @Test("a public type gets a public init; a closure parameter is @escaping")
  func publicAndEscaping() {
    assertExpansion(
      """
      @Injectable
      public struct Handler {
        let onDone: () -> Void
      }
      """,
      expandedSource: """
        public struct Handler {
          let onDone: () -> Void

          public init(
            onDone: @escaping () -> Void = ForgeInject.ForgeInjection.resolve("Handler.onDone", fileID: "TestModule/test.swift", line: 3)
          ) {
            self.onDone = onDone
          }
        }
        """
    )
  }

  @Test("actors are supported")
  func actor() {
    assertExpansion(
      """
      @Injectable
      actor Store {
        let database: DatabaseProtocol
      }
      """,
      expandedSource: """
        actor Store {
          let database: DatabaseProtocol

          init(
            database: DatabaseProtocol = ForgeInject.ForgeInjection.resolve("Store.database", fileID: "TestModule/test.swift", line: 3)
          ) {
            self.database = database
          }
        }
        """
    )
  }

  @Test("nothing to inject gives init() {}")
  func empty() {
    assertExpansion(
      """
      @Injectable
      struct Empty {
        var x = 1
      }
      """,
      expandedSource: """
        struct Empty {
          var x = 1

          init() {
          }
        }
        """
    )
  }

  @Test("combines with @Inject, whose properties are vars it leaves alone")
  func withInject() {
    assertExpansion(
      """
      @Injectable
      final class Screen {
        let service: Service
        @Inject var analytics: Analytics
      }
      """,
      expandedSource: """
        final class Screen {
          let service: Service
          var analytics: Analytics {
            get {
              _analytics.value
            }
          }

          private let _analytics = ForgeInject.InjectedDependency<Analytics>("Screen.analytics", lazy: true, fileID: "TestModule/test.swift", line: 4)

          init(
            service: Service = ForgeInject.ForgeInjection.resolve("Screen.service", fileID: "TestModule/test.swift", line: 3)
          ) {
            self.service = service
          }
        }
        """
    )
  }

  @Test("on an enum: an error with a fix-it removing the attribute", arguments: ["enum", "protocol"])
  func unsupported(kind: String) {
    let article = kind == "enum" ? "an" : "a"
    assertExpansion(
      """
      @Injectable
      \(kind) Thing {}
      """,
      expandedSource: """
        \(kind) Thing {}
        """,
      diagnostics: [
        DiagnosticSpec(
          id: .init(domain: "ForgeInjectMacros", id: "injectableUnsupportedType"),
          message: "'@Injectable' applies to a class, struct or actor, not to \(article) \(kind)",
          line: 1,
          column: 1,
          fixIts: [FixItSpec(message: "Remove '@Injectable'")]
        )
      ],
      applyFixIts: ["Remove '@Injectable'"],
      fixedSource: """

        \(kind) Thing {}
        """
    )
  }
}
