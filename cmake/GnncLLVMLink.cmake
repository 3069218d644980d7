# How gnnc links LLVM: `GNNC_LLVM_LIBS`, the libraries every gnnc target
# that uses LLVM names instead of spelling `LLVM`.
#
# Debian builds LLVM with LLVM_LINK_LLVM_DYLIB, so `LLVM` is libLLVM.so.19.1
# and MLIR's exported (static) libraries name it too. Loading that library
# costs ~43 MiB of resident memory before main: its relocations and static
# initialisers touch most of its data pages, though gnnc calls little more
# than LLVM Support. That floor alone kept `gnnc run`'s peak RSS above a
# quarter of the PyTorch peer's (issue 4, docs/Benchmarks.md). Linking the
# static component archives instead (llvm-19-dev ships them, built as
# position independent code) brings in only the objects gnnc references.
#
# GNNC_STATIC_LLVM=OFF keeps the shared library (quicker links while
# developing, same behaviour).
option(GNNC_STATIC_LLVM
       "Link LLVM's static component libraries instead of libLLVM.so" ON)

if(NOT GNNC_STATIC_LLVM)
  set(GNNC_LLVM_LIBS LLVM)
  # What gnncConfig.cmake tells host programs of libgnnc-jit.so to link.
  set(GNNC_JIT_LLVM_LINK LLVM)
  return()
endif()

# LLVMSupport's link interface names these imported targets
# (zlib1g-dev, libzstd-dev; Findzstd.cmake comes with LLVM).
find_package(ZLIB REQUIRED)
find_package(zstd REQUIRED)
llvm_map_components_to_libnames(GNNC_LLVM_LIBS support)
set(GNNC_JIT_LLVM_LINK "")

# The MLIR archives gnnc links name `LLVM` in their link interface; swap it
# for the components everywhere, or a process would hold two copies of
# LLVM's globals (every cl::opt registered twice aborts at start-up).
foreach(target IN LISTS MLIR_EXPORTED_TARGETS)
  if(NOT TARGET ${target})
    continue()
  endif()
  get_target_property(libs ${target} INTERFACE_LINK_LIBRARIES)
  if(NOT libs)
    continue()
  endif()
  list(TRANSFORM libs REPLACE "^LLVM$" "${GNNC_LLVM_LIBS}")
  set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${libs}")
endforeach()

# gnnc's own MLIR libraries (add_mlir_library) name `LLVM` too, through
# llvm_add_library; called at the end of the top-level CMakeLists.txt, this
# swaps it in every target defined under \p dir.
function(gnnc_link_static_llvm dir)
  if(NOT GNNC_STATIC_LLVM)
    return()
  endif()
  set(linkOnly)
  foreach(lib IN LISTS GNNC_LLVM_LIBS)
    list(APPEND linkOnly "$<LINK_ONLY:${lib}>")
  endforeach()
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    foreach(prop LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
      get_target_property(libs ${target} ${prop})
      if(libs)
        list(TRANSFORM libs REPLACE "^LLVM$" "${GNNC_LLVM_LIBS}")
        list(TRANSFORM libs REPLACE "^\\$<LINK_ONLY:LLVM>$" "${linkOnly}")
        set_target_properties(${target} PROPERTIES ${prop} "${libs}")
      endif()
    endforeach()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    gnnc_link_static_llvm(${sub})
  endforeach()
endfunction()

# LLVMSupport's interface lists libz3 for its SMT API, which gnnc never
# calls; --as-needed leaves such libraries out of the DT_NEEDED list, so
# they are neither loaded nor relocated.
add_link_options(LINKER:--as-needed)
