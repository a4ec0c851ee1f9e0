/* Planted bugs of the wpq_gate core, for the co-simulation's self-test (test only). CMake compiles
 * this file once per bug with WPQ_PLANT = n: cores/wpq_gate.c with its PLANT(n) branch taken and
 * every external symbol renamed wpq_gate_* -> wpq_plant<n>_*, so the cosim executable holds the
 * real core and its planted copies side by side (one Verilator build). The state layout is the
 * same as the real core's, so the real query functions work on a planted core's state.
 *   1  window gating off by one: the first region beyond the window is taken (aliases a slot)
 *   2  deadlock check ignores the boundary bit (overflow mode with the boundary received)
 *   3  power-failure settle: a persisted region with no entry left counts as drainable
 *   4  progress counter misses commits (power-failure settle / progress output)
 *   5  wpq_gate_store does not retry the write-through after the deadlock check (transaction API
 *      only: the RTL has no such call, so only the C tests can catch it)
 * tb/wpq_gate_cosim.cpp: cosim.WpqPlanted.* pass only if the lockstep reports a mismatch. */
#ifndef WPQ_PLANT
#error "WPQ_PLANT must be defined"
#endif
#define WPQ_CAT3_(a, b, c) a##b##c
#define WPQ_CAT3(a, b, c) WPQ_CAT3_(a, b, c)
#define WPQ_RENAME(f) WPQ_CAT3(wpq_plant, WPQ_PLANT, _##f)
#define wpq_gate_ack_on_entry WPQ_RENAME(ack_on_entry)
#define wpq_gate_bdry_ack WPQ_RENAME(bdry_ack)
#define wpq_gate_bdry_bit WPQ_RENAME(bdry_bit)
#define wpq_gate_boundary WPQ_RENAME(boundary)
#define wpq_gate_bypass WPQ_RENAME(bypass)
#define wpq_gate_bytes WPQ_RENAME(bytes)
#define wpq_gate_can_drain WPQ_RENAME(can_drain)
#define wpq_gate_check_deadlock WPQ_RENAME(check_deadlock)
#define wpq_gate_config WPQ_RENAME(config)
#define wpq_gate_count WPQ_RENAME(count)
#define wpq_gate_count_refusals WPQ_RENAME(count_refusals)
#define wpq_gate_entry WPQ_RENAME(entry)
#define wpq_gate_err WPQ_RENAME(err)
#define wpq_gate_flush_ack WPQ_RENAME(flush_ack)
#define wpq_gate_flush_done WPQ_RENAME(flush_done)
#define wpq_gate_flush_id WPQ_RENAME(flush_id)
#define wpq_gate_get_stats WPQ_RENAME(get_stats)
#define wpq_gate_init WPQ_RENAME(init)
#define wpq_gate_load_hit WPQ_RENAME(load_hit)
#define wpq_gate_next_drain WPQ_RENAME(next_drain)
#define wpq_gate_offer_state WPQ_RENAME(offer_state)
#define wpq_gate_overflow WPQ_RENAME(overflow)
#define wpq_gate_persisted WPQ_RENAME(persisted)
#define wpq_gate_pf_discard WPQ_RENAME(pf_discard)
#define wpq_gate_pf_done WPQ_RENAME(pf_done)
#define wpq_gate_pf_settle WPQ_RENAME(pf_settle)
#define wpq_gate_power_fail WPQ_RENAME(power_fail)
#define wpq_gate_power_failed WPQ_RENAME(power_failed)
#define wpq_gate_progress WPQ_RENAME(progress)
#define wpq_gate_push WPQ_RENAME(push)
#define wpq_gate_step WPQ_RENAME(step)
#define wpq_gate_store WPQ_RENAME(store)
#define wpq_gate_try_commit WPQ_RENAME(try_commit)
#include "../cores/wpq_gate.c"
