//===- DataSource.h - Finding datasets at compile time ------------*- C++
//-*-===//
//
// Private to lang/Sema: resolves `dataset("name")` to a directory and reads
// its counts, so widths (`features`, `classes`) are known at compile time.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_LANG_SEMA_DATASOURCE_H
#define GNNC_LANG_SEMA_DATASOURCE_H

#include "lang/Sema/CheckedProgram.h"

namespace gnnc {
class DiagnosticEngine;
struct SemaOptions;

/// Fills \p data (kind Dataset, name set) from the first matching directory:
/// a name is looked up in each directory of the search path; a string with a
/// '/' is a path, relative ones tried against the source file's directory and
/// then the working directory. Reports "not found" (with the places searched
/// and the closest known name) or "malformed" (with the file and the field).
void resolveDataset(sema::DataSource &data, Location loc,
                    const SemaOptions &options, DiagnosticEngine &diags);

} // namespace gnnc

#endif // GNNC_LANG_SEMA_DATASOURCE_H
