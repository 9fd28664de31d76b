/* Recurrent cells' step kernels (rnn.c): dbl selects double over float. */
#ifndef CG_RNN_H
#define CG_RNN_H
#include "kernels.h"

void cg_lstm_fwd(int dbl, cg_index n, cg_index hs, const void* gh, const void* gx,
                 const void* cprev, void* a, void* c, void* tc, void* h);
void cg_lstm_bwd(int dbl, cg_index n, cg_index hs, const void* dhr, const void* gout,
                 void* dc, const void* a, const void* cprev, const void* tc, void* d);
void cg_gru_fwd(int dbl, cg_index n, cg_index hs, const void* gi, const void* gh,
                const void* hprev, void* a, void* ghn, void* h);
void cg_gru_bwd(int dbl, cg_index n, cg_index hs, const void* dhr, const void* gout,
                const void* a, const void* ghn, const void* hprev, void* di, void* dgh,
                void* dhp);
void cg_elman_fwd(int dbl, cg_index m, int relu, const void* gh, const void* gx, void* h);
void cg_elman_bwd(int dbl, cg_index m, int relu, const void* dhr, const void* gout,
                  const void* h, void* d);
#endif
