#if canImport(CiaoNetService)
import CiaoNetService
#endif
import Foundation
