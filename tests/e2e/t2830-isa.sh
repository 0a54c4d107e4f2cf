#!/usr/bin/env bash
# THATCH_ISA (issue 26): `model info` names the instruction set the
# kernels use; every ISA this machine runs can be forced and then saves
# and finds the same memories; a name nobody knows, or an ISA this CPU or
# build cannot run, is refused with one line naming the variable.
. "$(dirname "$0")/lib.sh"

best=$(thatch model info | sed -n 's/^isa: *//p')
case $best in
generic | avx2 | avx512 | neon) _pass "model info names the ISA in effect" ;;
*) _fail "model info names the ISA in effect" "isa: '$best'" ;;
esac
out=$(THATCH_ISA=generic thatch model info | sed -n 's/^isa: *//p')
expect_eq "THATCH_ISA=generic forces the plain C kernels" generic "$out"

for isa in generic "$best"; do
	THATCH_ISA=$isa thatch remember --store global "Kernel $isa" \
	    "The build on $isa keeps vectors." >/dev/null
	out=$(THATCH_ISA=$isa thatch search "vectors on $isa" global)
	expect_contains "search finds what remember saved under THATCH_ISA=$isa" \
	    "$out" "Kernel $isa"
done

out=$(THATCH_ISA=vax thatch model info 2>&1); rc=$?
expect_eq "an unknown ISA fails the command" 1 "$rc"
expect_contains "with a reason naming the variable" "$out" "THATCH_ISA=vax"
expect_eq "in one line" 1 "$(printf '%s\n' "$out" | wc -l)"
# the ISA of the other architecture (the shell may run natively while
# thatch runs under qemu: ask thatch, not uname)
case $best in
neon) other=avx512 ;;
*) other=neon ;;
esac
out=$(THATCH_ISA=$other thatch model info 2>&1); rc=$?
expect_eq "an ISA this machine cannot run fails the command" 1 "$rc"
expect_contains "with a reason" "$out" "THATCH_ISA=$other: this CPU or build cannot run it"
finish
