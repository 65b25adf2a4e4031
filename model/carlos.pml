/*
 * The join protocol (docs/protocol.md, "The model and the fault soak"),
 * in Promela for SPIN; model/check.sh checks it.
 *
 * Actors: K boxes, each an agent (carlos agent: SelectMode, RunJoining,
 * RunHosting, the record loop, the guard-ready report) and root's join
 * (carlos system join: guard::Join); two enrollers (carlos boxes
 * auto-enroll: ReadBoxDocs, enroll::Decide, WriteInvitation,
 * WriteEnrollment); an operator who retires one box (Enroller::Retire);
 * another machine that claims box 0's label (a conflict); time, which
 * expires invitations. The store: create-only and compare-and-swap writes
 * and single-key reads; every interleaving of the actors' steps is
 * explored (which reads share a step, and why, is said at each actor; the
 * table in docs/protocol.md maps each step to its function). Crashes: an agent or a join is killed at any
 * step (bounded by MAXCRASH) and loses everything it held in memory; the
 * store and the box's disk (box key, guard files) stay.
 *
 * Abstractions (docs/protocol.md says why each is sound):
 *  - a signed document is its fields; a signature is never forged (the
 *    enrollment key is not modelled as leaked), so "valid" = present and
 *    bound (record, invitation, guard) as the reader checks;
 *  - the guard's digest is the invitation version it binds (the guard binds
 *    the box's own record always: guard::Join refuses another);
 *  - time: an invitation's expiry is a flag that flips (once, monotone) at
 *    any moment, only while the box has had fewer than MAXINV invitations;
 *    a guard-ready report is always fresh;
 *  - nudges (joinNudgeEvery) happen on every check;
 *  - the joining agent that decides hosting hosts at once (the real one
 *    exits and its restart selects again: a subset of these behaviours).
 *
 * Variants (-D): BROKEN_NO_GUARD (hosting on the enrollment alone),
 * BROKEN_NO_RETIRED (hosting ignores retirements), BROKEN_PUT_INVITATION
 * (invitations written unconditionally), BROKEN_PUT_ENROLLMENT
 * (enrollments written unconditionally), BROKEN_PUT_RECORD (the record
 * written unconditionally), STRICT (the invariant without the one-check
 * grace);
 * the product before the fixes of the model's findings, as regressions
 * that must fail `live`: SEED_NUDGE (the agent asks root only when
 * invited, as the seed), NO_REENROLL (an enrollment is never replaced);
 * NO_JOIN_CRASH, ONE_ENROLLER, NO_EXPIRY; K (boxes, 1-3), MAXINV,
 * MAXCRASH, MAXFAULT (bounds).
 */

#ifndef K
#define K 3
#endif
#ifndef MAXINV
#define MAXINV 2
#endif
#ifndef MAXCRASH
#define MAXCRASH 1
#endif
#ifndef MAXFAULT
#define MAXFAULT 1
#endif

#define NONE 0
#define OWN 1      /* the record this box's own key signed */
#define OTHER 2    /* a record another machine wrote under box 0's label */

/* ---- the deployment store ---- */
byte rec[K];        /* control/boxes/<box>.json: NONE, OWN, OTHER; create-only */
byte inv[K];        /* control/invitations: 0 none, else its version 1..MAXINV */
byte inv_rec[K];    /*   the record it binds */
bool inv_exp[K];    /*   expired (now >= expires_at) */
byte enr_g[K];      /* control/enrollments: 0 none, else the guard it binds */
byte enr_rec[K];    /*   the record it binds */
byte ret_rec[K];    /* control/retired: 0 none, else the record it retires */
byte rep_g[K];      /* status/boxes: the guard-ready report's guard (0: none) */
bool rep_armed[K];

/* ---- each box's disk (survives crashes) ---- */
byte g_inv[K];      /* hostguard/guard.json: the invitation it binds; 0 none */
byte armed[K];      /* hostguard/armed.json: the guard it arms; 0 none */
bool marker[K];     /* system-join-requested changed, join not yet run */

/* ---- observation (ghosts: no actor reads them) ---- */
bool hosting[K];    /* the health check answers 200 */
bool saw_ret[K];    /* the box's agent has read a retirement of its record */
bool stale[K];      /* guard files or retirement changed since the check the box hosts on began */
bool pend[K];       /* ... since the agent's current check began */
byte enr_writes[K]; /* create-only enrollment writes the store accepted */
bool bad_reenroll;  /* an enrollment in effect (the box armed for it) was replaced by one for another guard */
bool bad_replace;   /* an invitation write replaced a valid invitation */
bool bad_record;    /* an identity record write replaced a record */
byte crashes;
byte faults;

#define TOUCH(i) stale[i] = 1; pend[i] = 1

/* A store read or write that fails (500, 503, unreachable, timeout): the
 * caller gets an error and knows nothing new. Bounded. */
#define FAULT (faults < MAXFAULT) -> faults++

/* ---------------------------------------------------------------------- */
/* The agent: the record loop, SelectMode, RunJoining, RunHosting.         */
/* ---------------------------------------------------------------------- */

#define JOINING 0
#define HOSTING 1

/* Decisions of SelectMode (host/joinmode.h) */
#define D_ERROR 0
#define D_RETIRED 1
#define D_UNRECORDED 2
#define D_CONFLICT 3
#define D_HOSTING 4
#define D_READY 5
#define D_INSTALLED 6
#define D_INVITED 7
#define D_RECORDED 8
#define D_GO 9        /* read on */

proctype Agent(byte i) {
  /* Each step is one access to shared state with the local computation
   * around it folded in; locals are cleared once dead, so equal states
   * meet. SelectMode's store reads (retired, record, enrollment,
   * invitation) are one step and its guard read another: the record and
   * the enrollment are create-only and never removed, so what matters is
   * that the retirement is read before the guard (stale, below). */
  bool hosts;          /* in RunHosting */
  byte d;
  byte leg, liv;
  bool ev, iv;

restart:
  atomic { hosting[i] = 0; hosts = 0; d = D_ERROR }

check:
  if
  :: FAULT -> d = D_ERROR; goto decided   /* a store read failed: mode unknown */
  :: atomic {
       pend[i] = 0;
       if
#ifdef BROKEN_NO_RETIRED
       :: ret_rec[i] != 0 && (rec[i] == NONE || ret_rec[i] == rec[i]) && !hosts -> d = D_RETIRED
#else
       :: ret_rec[i] != 0 && (rec[i] == NONE || ret_rec[i] == rec[i]) ->
          d = D_RETIRED; hosting[i] = 0;
          if :: ret_rec[i] == OWN -> saw_ret[i] = 1 :: else -> skip fi
#endif
       :: else ->
          if
          :: rec[i] == NONE -> d = D_UNRECORDED
          :: rec[i] == OTHER -> d = D_CONFLICT
          :: else ->
             leg = enr_g[i]; ev = (enr_g[i] != 0 && enr_rec[i] == OWN);
             liv = inv[i]; iv = (inv[i] != 0 && inv_rec[i] == OWN && !inv_exp[i]);
             if
             :: !ev && !iv -> d = D_RECORDED; leg = 0; liv = 0
             :: else -> d = D_GO
             fi
          fi
       fi
     }
  fi;
  if :: d != D_GO -> goto decided :: else -> skip fi;
  /* the guard (guard::ReadGuardState: the box's disk), and the decision */
  atomic {
#ifdef BROKEN_NO_GUARD
    if
    :: ev -> d = D_HOSTING
    :: else -> skip
    fi;
    if :: d == D_HOSTING -> skip :: else ->
#endif
    if
    :: ev && g_inv[i] != 0 && armed[i] == g_inv[i] && leg == g_inv[i] -> d = D_HOSTING
    :: else ->
       if
       :: iv && g_inv[i] != 0 && g_inv[i] == liv && armed[i] == g_inv[i] -> d = D_READY
       :: iv && g_inv[i] != 0 && g_inv[i] == liv && armed[i] != g_inv[i] -> d = D_INSTALLED
       :: else -> d = D_INVITED
       fi
    fi;
#ifdef BROKEN_NO_GUARD
    fi;
#endif
    leg = 0; liv = 0; ev = 0; iv = 0;
    /* RunJoining: hosting; RunHosting: keep hosting, or drain (503) */
    if
    :: d == D_HOSTING -> hosting[i] = 1; hosts = 1; stale[i] = pend[i]
    :: d != D_HOSTING && hosts -> hosting[i] = 0
    :: else -> skip
    fi
  }

decided:
  if
  :: hosts ->
     /* RunHosting: an error keeps the box hosting; any other decision has
      * drained it (503), and it exits; systemd starts it again, joining. */
     if
     :: d == D_HOSTING || d == D_ERROR -> d = D_ERROR
     :: else -> goto restart
     fi
  :: !hosts && d == D_UNRECORDED ->
     /* the record loop: create-only; PreconditionFailed leaves it as is */
     atomic { if :: rec[i] == NONE -> rec[i] = OWN :: else -> skip fi; d = D_ERROR }
  :: !hosts && d == D_INVITED -> atomic { marker[i] = 1; d = D_ERROR }   /* request_arm */
  :: !hosts && (d == D_READY || d == D_INSTALLED) ->
     /* the guard-ready report: the guard read afresh and published; at
      * guard-installed (from the stage's second nudge; nudges are every
      * check here) root is asked again too (request_arm), unless
      * SEED_NUDGE (the seed: only when invited) */
     atomic { rep_g[i] = g_inv[i]; rep_armed[i] = (g_inv[i] != 0 && armed[i] == g_inv[i]);
#ifndef SEED_NUDGE
              if :: d == D_INSTALLED -> marker[i] = 1 :: else -> skip fi;
#endif
              d = D_ERROR }
  :: else -> d = D_ERROR
  fi;
  if
  :: atomic { crashes < MAXCRASH -> crashes++ }; goto restart   /* kill -9 */
  :: goto check
  fi
}

/* ---------------------------------------------------------------------- */
/* Root's join: guard::Join, run whenever the marker changes.              */
/* ---------------------------------------------------------------------- */

proctype Join(byte i) {
  byte liv;
end_wait:
  /* started by the marker: the record (this box's key), the retirement,
   * the invitation (valid: bound to the record, not expired) */
  atomic {
    marker[i] -> marker[i] = 0;
    if
    :: rec[i] != OWN -> goto end_wait
    :: ret_rec[i] != 0 && ret_rec[i] == rec[i] -> goto end_wait
    :: inv[i] == 0 || inv_rec[i] != OWN || inv_exp[i] -> goto end_wait
    :: else -> liv = inv[i]
    fi
  }
  /* 5. install (under the guard dir's lock: one join at a time per box) */
  atomic { if :: g_inv[i] != liv -> g_inv[i] = liv; TOUCH(i) :: else -> skip fi }
#ifndef NO_JOIN_CRASH
  if
  :: crashes < MAXCRASH -> atomic { crashes++; liv = 0 }; goto end_wait   /* kill -9 before arming */
  :: skip
  fi;
#endif
  /* 6. arm */
  atomic { if :: armed[i] != liv -> armed[i] = liv; TOUCH(i) :: else -> skip fi; liv = 0 }
  goto end_wait
}

/* ---------------------------------------------------------------------- */
/* An enroller: one box of a pass. Its reads (ListFleet, ReadBoxDocs) and  */
/* enroll::Decide are one step, its write (WriteInvitation,                */
/* WriteEnrollment: create-only or compare-and-swap) another; between     */
/* them anything may happen, which is what the writes' conditions are for. */
/* ---------------------------------------------------------------------- */

#define A_NONE 0
#define A_INVITE 1
#define A_REINVITE 2
#define A_ENROLL 3
#define A_REENROLL 4

proctype Enroller() {
  byte i, act, lrec, liv, lenr;
pass:
  if
  :: FAULT -> skip   /* the pass failed: tries again */
  :: atomic {
       select(i : 0 .. K - 1);
       lrec = rec[i];
       if
       :: lrec == NONE -> skip                                  /* nothing: no record */
       :: ret_rec[i] != 0 && ret_rec[i] == lrec -> skip         /* refused: retired */
       :: enr_g[i] != 0 && enr_rec[i] == lrec ->
          /* enrolled: nothing, unless (EnrolledForAnotherGuard) the fresh
           * report shows another guard armed for the valid invitation:
           * re-enroll, compare-and-swap on the enrollment read */
          if
#ifndef NO_REENROLL
          :: rep_armed[i] && rep_g[i] != 0 && rep_g[i] != enr_g[i] &&
             inv[i] != 0 && inv_rec[i] == lrec && !inv_exp[i] && rep_g[i] == inv[i] ->
             act = A_REENROLL; liv = inv[i]; lenr = enr_g[i]
#endif
          :: else -> skip
          fi
       :: else ->
          if
          :: inv[i] == 0 -> act = A_INVITE
          :: inv[i] != 0 && inv_rec[i] == lrec && !inv_exp[i] ->
             /* CheckReport: armed, bound to this record and invitation */
             if
             :: rep_g[i] == inv[i] && rep_armed[i] -> act = A_ENROLL; liv = inv[i]
             :: else -> skip                                    /* waiting */
             fi
          :: inv[i] != 0 && (inv_rec[i] != lrec || inv_exp[i]) && inv[i] < MAXINV ->
             act = A_REINVITE; liv = inv[i]
          :: else -> skip
          fi
       fi;
       if :: act == A_NONE -> i = 0; lrec = 0 :: else -> skip fi
     }
  fi;
  atomic {
    if
    :: act == A_ENROLL ->
       /* WriteEnrollment: create-only (PreconditionFailed: another enroller was first) */
#ifdef BROKEN_PUT_ENROLLMENT
       enr_g[i] = liv; enr_rec[i] = lrec; enr_writes[i]++
#else
       if
       :: enr_g[i] == 0 -> enr_g[i] = liv; enr_rec[i] = lrec; enr_writes[i]++
       :: else -> skip
       fi
#endif
    :: act == A_REENROLL ->
       /* WriteEnrollment(replace): compare-and-swap on the version read
        * (an enrollment is its guard and record here: versions are unique
        * per write in the store, so this lets more writes through) */
       if
       :: enr_g[i] == lenr && enr_rec[i] == lrec ->
          if :: armed[i] != 0 && armed[i] == g_inv[i] && g_inv[i] == enr_g[i] && liv != enr_g[i] ->
                bad_reenroll = 1
             :: else -> skip fi;
          enr_g[i] = liv; enr_rec[i] = lrec
       :: else -> skip
       fi
    :: act == A_INVITE ->
       /* WriteInvitation: create-only */
       if
       :: inv[i] == 0 -> inv[i] = 1; inv_rec[i] = lrec; inv_exp[i] = 0
       :: else -> skip
       fi
    :: act == A_REINVITE ->
       /* WriteInvitation again: compare-and-swap on the version read */
#ifdef BROKEN_PUT_INVITATION
       if :: !inv_exp[i] && inv_rec[i] == rec[i] -> bad_replace = 1 :: else -> skip fi;
       inv[i] = liv + 1; inv_rec[i] = lrec; inv_exp[i] = 0
#else
       if
       :: inv[i] == liv ->
          if :: !inv_exp[i] && inv_rec[i] == rec[i] -> bad_replace = 1 :: else -> skip fi;
          inv[i] = liv + 1; inv_rec[i] = lrec; inv_exp[i] = 0
       :: else -> skip
       fi
#endif
    :: else -> skip
    fi;
    i = 0; act = A_NONE; lrec = 0; liv = 0; lenr = 0
  }
  goto pass
}

/* The operator: carlos boxes retire, once, any box, any moment. */
active proctype Operator() {
  byte i, lrec;
  atomic { select(i : 0 .. K - 1); lrec = rec[i] }
  if
  :: lrec != NONE ->
     atomic { if :: ret_rec[i] == 0 -> ret_rec[i] = lrec; TOUCH(i)
              :: else -> skip fi }
  :: else -> skip
  fi
}

/* Another machine whose label is box-0's writes its own record, create-only. */
active proctype Other() {
#ifdef BROKEN_PUT_RECORD
  atomic { if :: rec[0] != NONE && rec[0] != OTHER -> bad_record = 1 :: else -> skip fi;
           rec[0] = OTHER }
#else
  atomic { if :: rec[0] == NONE -> rec[0] = OTHER :: else -> skip fi }
#endif
}

/* Time: an invitation expires (only while the box has had < MAXINV). */
#ifndef NO_EXPIRY
#define EXPIRE(b) atomic { inv[b] != 0 && inv[b] < MAXINV && !inv_exp[b] -> inv_exp[b] = 1 }
active proctype Time() {
end:
  do
  :: EXPIRE(0)
#if K > 1
  :: EXPIRE(1)
#endif
#if K > 2
  :: EXPIRE(2)
#endif
  od
}
#endif

init {
  byte i;
  atomic {
    for (i : 0 .. K - 1) {
      run Agent(i);
      run Join(i);
    }
    run Enroller();
#ifndef ONE_ENROLLER
    run Enroller();
#endif
  }
}

/* ---------------------------------------------------------------------- */
/* Properties                                                             */
/* ---------------------------------------------------------------------- */

/* A box hosts only while an enrollment bound to its current identity
 * record exists, its guard is armed for that enrollment, and it is not
 * retired -- as of the agent's latest check: a retirement or a change of
 * the guard files after that check began is acted on at the next check
 * (stale), never later (LTL `stops` below). STRICT drops that grace. */
#ifdef STRICT
#define GRACE(i) 0
#else
#define GRACE(i) stale[i]
#endif
#define OK(i) (!hosting[i] || (rec[i] == OWN && enr_g[i] != 0 && enr_rec[i] == OWN && \
               ((g_inv[i] == enr_g[i] && armed[i] == g_inv[i] && ret_rec[i] != OWN) || GRACE(i))))
#define NEVER_AGAIN(i) (!saw_ret[i] || !hosting[i])
#define ONE_ENR(i) (enr_writes[i] <= 1)

#if K == 1
#define ALL(P) (P(0))
#elif K == 2
#define ALL(P) (P(0) && P(1))
#else
#define ALL(P) (P(0) && P(1) && P(2))
#endif

ltl safety { [] (ALL(OK) && ALL(NEVER_AGAIN) && ALL(ONE_ENR) && !bad_replace && !bad_record &&
                 !bad_reenroll) }

/* A box that hosts while its conditions do not hold stops (at its next check). */
#define L (K - 1)
ltl stops { [] ((hosting[L] && !(rec[L] == OWN && enr_g[L] != 0 && g_inv[L] == enr_g[L] &&
                  armed[L] == g_inv[L] && ret_rec[L] != OWN)) -> <> !hosting[L]) }

/* Liveness: box L, once recorded under its own key, ends up hosting for
 * good unless it is retired (or another machine recorded its label
 * first: a conflict, which an operator resolves). Faults, crashes and
 * expiries are bounded, so they stop; weak fairness (pan -f). */
ltl live { <> [] (hosting[L] || ret_rec[L] != 0 || rec[L] == OTHER) }
