# thatch — one GNU Makefile, no autotools (STYLE.md §10).
#
#   make                    build ./thatch
#   make check              unit tests + end-to-end tests (tests/run)
#   make check SANITIZE=address,undefined
#                           the same under ASan + UBSan (separate build dir)
#   make check-portable     the POSIX path (PORTABLE=1, build-portable/):
#                           no Linux-only call, and the units and the
#                           sideband/hook/MCP/setup e2e tests pass
#   make valgrind           unit tests and a long MCP session under valgrind
#   make lint               headers compile alone, includes point down, no
#                           banned functions (scripts/lint); then the shape
#                           of src/: no circle of files, small folders and
#                           files, unique names (scripts/lint-shape, on the
#                           objects it builds first)
#   make fuzz [FUZZ_TIME=60]
#                           build the libFuzzer harnesses (clang) and run
#                           each for FUZZ_TIME seconds (docs/testing.md)
#   make ARCH=aarch64       cross-build build-aarch64/thatch (and `units`)
#   make test-aarch64       that build's short unit list and an e2e subset
#                           under qemu-user (scripts/test-aarch64)
#   make bench              benchmarks (bench/README.md)
#   make install            PREFIX=/usr/local DESTDIR=
#   make uninstall          the same files out again (same variables)
#
# Sources are not listed: every .c in a layer's folder or a subsystem folder
# of it (src/<layer>/, src/<layer>/<subsystem>/) is found by a wildcard and
# goes into libthatch.a, which the binary and the unit tests link; main.c,
# directly under src/, is the program's entry.

VERSION  = 0.2.0
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin

PKGS     = sqlite3 jansson libcurl libutf8proc libmd

PKG_CONFIG ?= pkg-config

# Issue 26 (platforms): PORTABLE=1 builds src/util/os/plat_posix.c instead
# of plat_linux.c (no Linux-only call compiled in; scripts/check-portable
# proves it with nm) in build-portable/, the macOS code path tested here.
ifneq ($(PORTABLE),)
O       ?= build-portable
CFLAGS  += -DTHATCH_PORTABLE
endif
# Static linking of the small libraries is GNU ld's -Bstatic; elsewhere
# (Apple's ld) they link dynamically, the platform's way.
GNU_LD  := $(shell $(CC) -Wl,--version 2>/dev/null | grep -q 'GNU' && echo 1)
# Homebrew keeps sqlite and curl out of its prefix (keg-only): their .pc
# files are found where it puts them (make 3.81, Apple's, does not export
# to $(shell), hence the variable on the command). With _POSIX_C_SOURCE
# set, Darwin's headers hide everything else unless _DARWIN_C_SOURCE is
# set too (glibc's _DEFAULT_SOURCE), and its struct stat names POSIX's
# st_mtim st_mtimespec (stat(2)).
ifeq ($(shell uname -s),Darwin)
BREW      := $(shell brew --prefix 2>/dev/null)
PKG_CONFIG = PKG_CONFIG_PATH=$(BREW)/opt/sqlite/lib/pkgconfig:$(BREW)/opt/curl/lib/pkgconfig:$$PKG_CONFIG_PATH pkg-config
CFLAGS    += -D_DARWIN_C_SOURCE -Dst_mtim=st_mtimespec
endif

# ARCH=aarch64 cross-builds with Debian's gcc-aarch64-linux-gnu against the
# arm64 multiarch -dev packages (dpkg --add-architecture arm64; `make deps`
# installs both): Debian's own builds of sqlite3, jansson, utf8proc, libmd
# and the curl headers, the same versions as the native
# build's, with the .a files static linking needs, where building them
# from source would pin other versions. Its objects live in build-aarch64.
ifeq ($(ARCH),aarch64)
CC       = aarch64-linux-gnu-gcc
AR       = aarch64-linux-gnu-ar
O        = build-aarch64
PKG_CONFIG = PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig pkg-config
endif

# A sanitizer build lives in its own directory so it never mixes objects
# with the normal build.
ifneq ($(SANITIZE),)
O       ?= build-san
SAN      = -fsanitize=$(SANITIZE) -fno-sanitize-recover=all
else
O       ?= build
SAN      =
endif

CC      ?= cc
OPT     ?= -O2 -g
CFLAGS  += -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(OPT) \
           -MMD -MP -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes \
           -Wmissing-prototypes -Wvla -Wwrite-strings \
           -Isrc -DTHATCH_VERSION='"$(VERSION)"' \
           $(shell $(PKG_CONFIG) --cflags $(PKGS)) \
           $(SAN) -fno-omit-frame-pointer -pthread $(if $(DEVELOPER),-Werror)
LDFLAGS += $(SAN) -pthread
# libcurl and OpenBLAS are not linked: src/util/os/dl.c loads them when a
# download or the first matrix product starts, sparing every other process
# their dependency trees and OpenBLAS's thread pool (~30 ms of startup).
# The four small libraries are linked statically by default (Debian ships
# their .a files): a hook runs on every tool call, and their dynamic
# loading and relocation cost each process ~1 ms, a third of its start-up
# (bench/README.md b001). STATIC= links them dynamically instead, to take
# Debian's security updates without rebuilding.
# GCC notes that bert.c's 64-byte vector arguments pass differently per
# ISA; its vector helpers are always inlined, so no such call exists (a
# pragma cannot silence a note).
$(O)/src/embed/bert.o: CFLAGS += -Wno-psabi -ffp-contract=fast

LINKED   = $(filter-out libcurl,$(PKGS))
STATIC  ?= $(GNU_LD)
BSTATIC  = -Wl,-Bstatic
BDYNAMIC = -Wl,-Bdynamic
LDLIBS  += $(if $(STATIC),$(BSTATIC)) $(shell $(PKG_CONFIG) --libs $(LINKED)) \
           $(if $(STATIC),$(BDYNAMIC)) -ldl -lm

# Every .c under a layer folder is part of the library (main.c, directly
# under src/, is the program's entry); a new file needs no line here.
LIB_SRC  = $(sort $(wildcard src/*/*.c src/*/*/*.c))
LIB_OBJ  = $(LIB_SRC:%.c=$(O)/%.o)

UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(O)/tests/%)

BIN      = $(if $(SANITIZE)$(ARCH)$(PORTABLE),$(O)/thatch,thatch)

all: $(BIN)

# A binary in a build folder finds the opencode plugin where ./thatch does
# (share/opencode/ beside it: host/setup/opencode_setup.c), through a link.
$(BIN): $(O)/src/main.o $(O)/libthatch.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
	$(if $(filter $(O)/%,$(BIN)),ln -sfn ../share $(O)/share)

$(O)/libthatch.a: $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(O)/tests/%: tests/unit/%.c $(O)/libthatch.a tests/unit/check.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< $(O)/libthatch.a $(LDFLAGS) $(LDLIBS)

# The fuzz harnesses (tests/fuzz/fuzz_<name>.c, docs/testing.md) build
# twice. In every build, as the unit test test_fuzz_<name>: the harness
# with replay.c's main(), which feeds it each corpus and regression input;
# tests/run runs it with the other units (and under ASan/UBSan in `make
# test`). With clang, as a libFuzzer target in build-fuzz/fuzz/<name>.
FUZZ_SRC    = $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_REPLAY = $(FUZZ_SRC:tests/fuzz/fuzz_%.c=$(O)/tests/test_fuzz_%)
FUZZ_BIN    = $(FUZZ_SRC:tests/fuzz/fuzz_%.c=$(O)/fuzz/%)
FUZZ_CC    ?= clang
FUZZ_SAN    = fuzzer-no-link,address,undefined
FUZZ_TIME  ?= 60

$(O)/tests/test_fuzz_%: tests/fuzz/fuzz_%.c $(O)/tests/fuzz/replay.o \
    $(O)/libthatch.a tests/fuzz/fuzz.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(O)/tests/fuzz/replay.o $(O)/libthatch.a \
	    $(LDFLAGS) $(LDLIBS)

# an object of every replay, not an intermediate for make to delete
.SECONDARY: $(O)/tests/fuzz/replay.o

$(O)/fuzz/%: tests/fuzz/fuzz_%.c $(O)/libthatch.a tests/fuzz/fuzz.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(O)/libthatch.a \
	    $(LDFLAGS) $(LDLIBS)

units: $(UNIT_BIN) $(FUZZ_REPLAY)

# The libFuzzer targets: every object again with coverage and sanitizers.
fuzzers:
	$(MAKE) --no-print-directory CC=$(FUZZ_CC) O=build-fuzz \
	    SANITIZE=$(FUZZ_SAN) fuzz-bin
fuzz-bin: $(FUZZ_BIN)

fuzz: fuzzers
	THATCH_FUZZ_DIR=$(abspath build-fuzz/fuzz) FUZZ_TIME=$(FUZZ_TIME) \
	    FUZZ_WORK=$(abspath build-fuzz/work) tests/fuzz/smoke.sh

# Benchmark programs build with exactly the flags of the binary; `make
# test` builds them too, so that an interface change cannot leave them
# behind unnoticed.
BENCH_BIN = $(patsubst bench/%.c,$(O)/bench/%,$(wildcard bench/*.c))

$(O)/bench/%: bench/%.c bench/bench.h $(O)/libthatch.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(O)/libthatch.a $(LDFLAGS) $(LDLIBS)

# tests/run is the one entry point: it runs every unit binary and every
# end-to-end script and ends with "N passed, N failed".
check: $(BIN) units
	THATCH_BIN=$(abspath $(BIN)) THATCH_UNIT_DIR=$(abspath $(O)/tests) \
	    tests/run $(if $(SANITIZE),--units-only)

# What CI and the README run: everything above, plus the unit tests again
# under AddressSanitizer and UndefinedBehaviorSanitizer, the aarch64
# build's short list under qemu (where the cross tools are), and, where clang
# has libFuzzer, a short run of each fuzz harness (tests/fuzz/smoke.sh),
# in one tally.
test: $(BIN) units $(BENCH_BIN)
	$(MAKE) --no-print-directory SANITIZE=address,undefined units
	@if command -v aarch64-linux-gnu-gcc >/dev/null && \
	    command -v qemu-aarch64 >/dev/null && \
	    PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig \
	    pkg-config --exists sqlite3 jansson libutf8proc libmd; then \
	    $(MAKE) --no-print-directory test-aarch64 || exit 1; \
	    else echo "test-aarch64: skipped (make deps installs" \
	    "gcc-aarch64-linux-gnu, qemu-user and the arm64 libraries)"; fi
	@fz=; if FUZZ_CC=$(FUZZ_CC) tests/fuzz/smoke.sh --available; then \
	    $(MAKE) --no-print-directory fuzzers || exit 1; \
	    fz=$(abspath build-fuzz/fuzz); fi; \
	THATCH_BIN=$(abspath $(BIN)) THATCH_UNIT_DIR=$(abspath $(O)/tests) \
	    THATCH_SAN_UNIT_DIR=$(abspath build-san/tests) \
	    THATCH_FUZZ_DIR=$$fz tests/run

# The aarch64 build's tests run under qemu-user; kept to a short list so
# that `make test` spends ~3 minutes on them (scripts/test-aarch64).
test-aarch64:
	$(MAKE) --no-print-directory ARCH=aarch64 build-aarch64/thatch \
	    $(AARCH64_UNITS:%=build-aarch64/tests/%)
	scripts/test-aarch64 $(AARCH64_UNITS)
AARCH64_UNITS = test_bert test_gemm test_isa test_dedup test_plat

# Issue 26: the POSIX path (PORTABLE=1, build-portable/) through the nm
# check, the unit tests and the sideband/hook/MCP/setup e2e scripts.
check-portable: $(BIN)
	$(MAKE) --no-print-directory PORTABLE=1 all units
	scripts/check-portable $(BIN) build-portable/thatch build-portable/tests

valgrind: $(BIN) units
	THATCH_BIN=$(abspath $(BIN)) THATCH_UNIT_DIR=$(abspath $(O)/tests) \
	    THATCH_VALGRIND=1 tests/run --units-only --valgrind

# lint-shape reads the circles of files from the objects, so it needs them;
# both scripts run, so one failure does not hide the other's findings.
lint: $(O)/src/main.o $(LIB_OBJ)
	@rc=0; scripts/lint $(CC) "$(CFLAGS)" || rc=1; \
	    scripts/lint-shape $(O) || rc=1; exit $$rc

bench: $(BIN)
	bench/run

# The opencode plugin is one plain module beside the binary's prefix
# (docs/opencode.md); `thatch setup --opencode` finds it there.
install: $(BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PREFIX)/share/thatch
	install -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/thatch
	install -m 0644 share/opencode/thatch.js \
	    $(DESTDIR)$(PREFIX)/share/thatch/thatch.js

# Exactly what install put there; the share folder goes only when that
# leaves it empty. (Per-project files are `thatch setup --remove`'s.)
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/thatch $(DESTDIR)$(PREFIX)/share/thatch/thatch.js
	rmdir $(DESTDIR)$(PREFIX)/share/thatch 2>/dev/null || true

deps:
	scripts/install-deps

clean:
	rm -rf build build-san build-fuzz build-aarch64 build-portable thatch

# The skill texts are Markdown (src/text/skills/); skills.c includes the C
# rows scripts/gen-skills makes of them.
SKILLS_MD = $(wildcard src/text/skills/*.md) src/text/skills/skills.list
$(O)/gen/skills.inc: scripts/gen-skills $(SKILLS_MD)
	@mkdir -p $(dir $@)
	scripts/gen-skills src/text/skills >$@.tmp && mv $@.tmp $@
$(O)/src/text/skills.o: $(O)/gen/skills.inc
$(O)/src/text/skills.o: CFLAGS += -I$(O)/gen

# Everything after this point is bookkeeping.
.PHONY: all units check check-portable test valgrind lint bench install \
	uninstall deps clean fuzz fuzzers fuzz-bin test-aarch64

-include $(LIB_OBJ:.o=.d) $(O)/src/main.d
