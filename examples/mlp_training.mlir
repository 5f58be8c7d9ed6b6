// Training a small MLP classifier with dynamic loss scaling, written the way
// a front end hands a training step to amp-mlir: in fp32, with the amp
// loss-scaling ops. `--amp-o2` then runs the forward and backward passes in
// f16 (or bf16) from one cast of each fp32 master weight per step, while the
// gradients are unscaled into fp32 and Adam's update and state stay fp32.
//
//   @train_step  one step: forward, loss, hand-written backward, unscale and
//                check, scaler update, Adam on fp32 masters (skipped on Inf)
//   @train       300 steps over one synthetic batch, from initial weights;
//                returns the loss, the scale and found_inf of every step.
//                `inject_step` adds +Inf to a gradient at that step (-1: never).
//
// Model: x (256x16) -> linear 16x8 -> relu -> linear 8x4 -> softmax,
// cross-entropy against one-hot labels y (256x4). See docs/loss-scaling.md.
//
//   amp-run examples/mlp_training.mlir --entry train --level O2 \
//       --inputs x.npy,y.npy,w1.npy,b1.npy,w2.npy,b2.npy,inject.npy

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#all2 = affine_map<(d0, d1) -> ()>
#first2 = affine_map<(d0, d1) -> (0)>
#id1 = affine_map<(d0) -> (d0)>
#all1 = affine_map<(d0) -> ()>
#first1 = affine_map<(d0) -> (0)>

func.func @train_step(%x: tensor<256x16xf32>, %y: tensor<256x4xf32>,
    %w1: tensor<16x8xf32> {amp.master}, %b1: tensor<8xf32> {amp.master},
    %w2: tensor<8x4xf32> {amp.master}, %b2: tensor<4xf32> {amp.master},
    %mw1: tensor<16x8xf32>, %mb1: tensor<8xf32>,
    %mw2: tensor<8x4xf32>, %mb2: tensor<4xf32>,
    %vw1: tensor<16x8xf32>, %vb1: tensor<8xf32>,
    %vw2: tensor<8x4xf32>, %vb2: tensor<4xf32>,
    %t: tensor<1xf32>, %scale: tensor<f32>, %good: tensor<i32>,
    %bad: tensor<i32>, %hyst: tensor<i32>, %inject: tensor<f32>)
    -> (tensor<f32>,
        tensor<16x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>,
        tensor<16x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>,
        tensor<16x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>,
        tensor<1xf32>, tensor<f32>, tensor<i32>, tensor<i32>, tensor<i32>,
        tensor<i1>) {
  %zero = arith.constant 0.0 : f32

  // Forward.
  %eNxH = tensor.empty() : tensor<256x8xf32>
  %zNxH = linalg.fill ins(%zero : f32) outs(%eNxH : tensor<256x8xf32>) -> tensor<256x8xf32>
  %xw1 = linalg.matmul ins(%x, %w1 : tensor<256x16xf32>, tensor<16x8xf32>)
                       outs(%zNxH : tensor<256x8xf32>) -> tensor<256x8xf32>
  %hpre = linalg.generic {indexing_maps = [#id2, #row, #id2],
                          iterator_types = ["parallel", "parallel"]}
      ins(%xw1, %b1 : tensor<256x8xf32>, tensor<8xf32>) outs(%eNxH : tensor<256x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<256x8xf32>
  %h = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%hpre : tensor<256x8xf32>) outs(%eNxH : tensor<256x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<256x8xf32>
  %eNx4 = tensor.empty() : tensor<256x4xf32>
  %zNx4 = linalg.fill ins(%zero : f32) outs(%eNx4 : tensor<256x4xf32>) -> tensor<256x4xf32>
  %hw2 = linalg.matmul ins(%h, %w2 : tensor<256x8xf32>, tensor<8x4xf32>)
                       outs(%zNx4 : tensor<256x4xf32>) -> tensor<256x4xf32>
  %logits = linalg.generic {indexing_maps = [#id2, #row, #id2],
                            iterator_types = ["parallel", "parallel"]}
      ins(%hw2, %b2 : tensor<256x4xf32>, tensor<4xf32>) outs(%eNx4 : tensor<256x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<256x4xf32>
  %p = linalg.softmax dimension(1) ins(%logits : tensor<256x4xf32>)
                                   outs(%eNx4 : tensor<256x4xf32>) -> tensor<256x4xf32>

  // The loss, -mean(sum(y * log(p))), reported only: it stays fp32.
  %el = tensor.empty() : tensor<f32>
  %zl = linalg.fill ins(%zero : f32) outs(%el : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id2, #id2, #all2],
                          iterator_types = ["reduction", "reduction"]}
      ins(%p, %y : tensor<256x4xf32>, tensor<256x4xf32>) outs(%zl : tensor<f32>) {
  ^bb0(%pp: f32, %yy: f32, %acc: f32):
    %tiny = arith.constant 1.0e-12 : f32
    %minus_inv_batch = arith.constant -0.00390625 : f32
    %q = arith.addf %pp, %tiny : f32
    %l = math.log %q : f32
    %yl = arith.mulf %yy, %l : f32
    %c = arith.mulf %yl, %minus_inv_batch : f32
    %s = arith.addf %acc, %c : f32
    linalg.yield %s : f32
  } -> tensor<f32>

  // Backward. The seed d(loss)/d(logits) = (p - y) / 64 is scaled, so every
  // gradient below is scaled too.
  %dlogits = linalg.generic {indexing_maps = [#id2, #id2, #id2],
                             iterator_types = ["parallel", "parallel"]}
      ins(%p, %y : tensor<256x4xf32>, tensor<256x4xf32>) outs(%eNx4 : tensor<256x4xf32>) {
  ^bb0(%pp: f32, %yy: f32, %o: f32):
    %inv_batch = arith.constant 0.00390625 : f32
    %d = arith.subf %pp, %yy : f32
    %r = arith.mulf %d, %inv_batch : f32
    linalg.yield %r : f32
  } -> tensor<256x4xf32>
  %seed = amp.scale_loss %dlogits by %scale : tensor<256x4xf32>, tensor<f32> -> tensor<256x4xf32>

  %eHxN = tensor.empty() : tensor<8x256xf32>
  %hT = linalg.transpose ins(%h : tensor<256x8xf32>) outs(%eHxN : tensor<8x256xf32>) permutation = [1, 0]
  %eHx4 = tensor.empty() : tensor<8x4xf32>
  %zHx4 = linalg.fill ins(%zero : f32) outs(%eHx4 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %dw2 = linalg.matmul ins(%hT, %seed : tensor<8x256xf32>, tensor<256x4xf32>)
                       outs(%zHx4 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %db2 = linalg.reduce ins(%seed : tensor<256x4xf32>) outs(%z4 : tensor<4xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %e4xH = tensor.empty() : tensor<4x8xf32>
  %w2T = linalg.transpose ins(%w2 : tensor<8x4xf32>) outs(%e4xH : tensor<4x8xf32>) permutation = [1, 0]
  %dh = linalg.matmul ins(%seed, %w2T : tensor<256x4xf32>, tensor<4x8xf32>)
                      outs(%zNxH : tensor<256x8xf32>) -> tensor<256x8xf32>
  %dhpre = linalg.generic {indexing_maps = [#id2, #id2, #id2],
                           iterator_types = ["parallel", "parallel"]}
      ins(%dh, %hpre : tensor<256x8xf32>, tensor<256x8xf32>) outs(%eNxH : tensor<256x8xf32>) {
  ^bb0(%d: f32, %a: f32, %o: f32):
    %pos = arith.cmpf ogt, %a, %zero : f32
    %r = arith.select %pos, %d, %zero : f32
    linalg.yield %r : f32
  } -> tensor<256x8xf32>
  %e16xN = tensor.empty() : tensor<16x256xf32>
  %xT = linalg.transpose ins(%x : tensor<256x16xf32>) outs(%e16xN : tensor<16x256xf32>) permutation = [1, 0]
  %e16xH = tensor.empty() : tensor<16x8xf32>
  %z16xH = linalg.fill ins(%zero : f32) outs(%e16xH : tensor<16x8xf32>) -> tensor<16x8xf32>
  %dw1mm = linalg.matmul ins(%xT, %dhpre : tensor<16x256xf32>, tensor<256x8xf32>)
                         outs(%z16xH : tensor<16x8xf32>) -> tensor<16x8xf32>
  // Fault injection for the tests: + inject (0 or Inf).
  %dw1 = linalg.generic {indexing_maps = [#id2, #all2, #id2],
                         iterator_types = ["parallel", "parallel"]}
      ins(%dw1mm, %inject : tensor<16x8xf32>, tensor<f32>) outs(%e16xH : tensor<16x8xf32>) {
  ^bb0(%a: f32, %i: f32, %o: f32):
    %s = arith.addf %a, %i : f32
    linalg.yield %s : f32
  } -> tensor<16x8xf32>
  %eH = tensor.empty() : tensor<8xf32>
  %zH = linalg.fill ins(%zero : f32) outs(%eH : tensor<8xf32>) -> tensor<8xf32>
  %db1 = linalg.reduce ins(%dhpre : tensor<256x8xf32>) outs(%zH : tensor<8xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }

  // Loss scaling: unscale and check, then advance the scaler (PyTorch's
  // rules with a short growth interval, so that growth shows in 300 steps).
  %g:4, %found = amp.check_finite_and_unscale %dw1, %db1, %dw2, %db2
      : tensor<16x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>
      by %scale : tensor<f32>
  %scale1, %good1, %bad1, %hyst1 = amp.update_loss_scaling
      found_inf(%found : tensor<i1>) scale(%scale : tensor<f32>)
      good_steps(%good : tensor<i32>) bad_steps(%bad) hysteresis(%hyst)
      config #amp.loss_scaling<preset = "pytorch", growth_interval = 50>

  // Adam (lr 1e-2, betas 0.9/0.999, eps 1e-8) on the fp32 masters and their
  // fp32 moments, bias corrections from the applied-step count t; a step
  // with found_inf leaves master and moments unchanged.
  %u1:3 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2, #first2, #all2, #id2, #id2, #id2],
                             iterator_types = ["parallel", "parallel"]}
      ins(%w1, %g#0, %mw1, %vw1, %t, %found : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<1xf32>, tensor<i1>)
      outs(%w1, %mw1, %vw1 : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>) {
  ^bb0(%pp: f32, %gi: f32, %mm: f32, %vv: f32, %tt: f32, %f: i1, %o0: f32, %o1: f32, %o2: f32):
    %lr = arith.constant 1.0e-2 : f32
    %beta1 = arith.constant 0.9 : f32
    %beta2 = arith.constant 0.999 : f32
    %c1 = arith.constant 0.1 : f32
    %c2 = arith.constant 0.001 : f32
    %eps = arith.constant 1.0e-8 : f32
    %one = arith.constant 1.0 : f32
    %t1 = arith.addf %tt, %one : f32
    %bm = arith.mulf %beta1, %mm : f32
    %gm = arith.mulf %c1, %gi : f32
    %m1 = arith.addf %bm, %gm : f32
    %bv = arith.mulf %beta2, %vv : f32
    %g2 = arith.mulf %gi, %gi : f32
    %gv = arith.mulf %c2, %g2 : f32
    %v1 = arith.addf %bv, %gv : f32
    %p1t = math.powf %beta1, %t1 : f32
    %p2t = math.powf %beta2, %t1 : f32
    %bc1 = arith.subf %one, %p1t : f32
    %bc2 = arith.subf %one, %p2t : f32
    %sv = math.sqrt %v1 : f32
    %sb = math.sqrt %bc2 : f32
    %q = arith.divf %sv, %sb : f32
    %den = arith.addf %q, %eps : f32
    %step = arith.divf %lr, %bc1 : f32
    %ratio = arith.divf %m1, %den : f32
    %delta = arith.mulf %step, %ratio : f32
    %p1 = arith.subf %pp, %delta : f32
    %rp = arith.select %f, %pp, %p1 : f32
    %rm = arith.select %f, %mm, %m1 : f32
    %rv = arith.select %f, %vv, %v1 : f32
    linalg.yield %rp, %rm, %rv : f32, f32, f32
  } -> (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>)
  %u2:3 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1, #first1, #all1, #id1, #id1, #id1],
                             iterator_types = ["parallel"]}
      ins(%b1, %g#1, %mb1, %vb1, %t, %found : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<1xf32>, tensor<i1>)
      outs(%b1, %mb1, %vb1 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%pp: f32, %gi: f32, %mm: f32, %vv: f32, %tt: f32, %f: i1, %o0: f32, %o1: f32, %o2: f32):
    %lr = arith.constant 1.0e-2 : f32
    %beta1 = arith.constant 0.9 : f32
    %beta2 = arith.constant 0.999 : f32
    %c1 = arith.constant 0.1 : f32
    %c2 = arith.constant 0.001 : f32
    %eps = arith.constant 1.0e-8 : f32
    %one = arith.constant 1.0 : f32
    %t1 = arith.addf %tt, %one : f32
    %bm = arith.mulf %beta1, %mm : f32
    %gm = arith.mulf %c1, %gi : f32
    %m1 = arith.addf %bm, %gm : f32
    %bv = arith.mulf %beta2, %vv : f32
    %g2 = arith.mulf %gi, %gi : f32
    %gv = arith.mulf %c2, %g2 : f32
    %v1 = arith.addf %bv, %gv : f32
    %p1t = math.powf %beta1, %t1 : f32
    %p2t = math.powf %beta2, %t1 : f32
    %bc1 = arith.subf %one, %p1t : f32
    %bc2 = arith.subf %one, %p2t : f32
    %sv = math.sqrt %v1 : f32
    %sb = math.sqrt %bc2 : f32
    %q = arith.divf %sv, %sb : f32
    %den = arith.addf %q, %eps : f32
    %step = arith.divf %lr, %bc1 : f32
    %ratio = arith.divf %m1, %den : f32
    %delta = arith.mulf %step, %ratio : f32
    %p1 = arith.subf %pp, %delta : f32
    %rp = arith.select %f, %pp, %p1 : f32
    %rm = arith.select %f, %mm, %m1 : f32
    %rv = arith.select %f, %vv, %v1 : f32
    linalg.yield %rp, %rm, %rv : f32, f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
  %u3:3 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2, #first2, #all2, #id2, #id2, #id2],
                             iterator_types = ["parallel", "parallel"]}
      ins(%w2, %g#2, %mw2, %vw2, %t, %found : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<1xf32>, tensor<i1>)
      outs(%w2, %mw2, %vw2 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
  ^bb0(%pp: f32, %gi: f32, %mm: f32, %vv: f32, %tt: f32, %f: i1, %o0: f32, %o1: f32, %o2: f32):
    %lr = arith.constant 1.0e-2 : f32
    %beta1 = arith.constant 0.9 : f32
    %beta2 = arith.constant 0.999 : f32
    %c1 = arith.constant 0.1 : f32
    %c2 = arith.constant 0.001 : f32
    %eps = arith.constant 1.0e-8 : f32
    %one = arith.constant 1.0 : f32
    %t1 = arith.addf %tt, %one : f32
    %bm = arith.mulf %beta1, %mm : f32
    %gm = arith.mulf %c1, %gi : f32
    %m1 = arith.addf %bm, %gm : f32
    %bv = arith.mulf %beta2, %vv : f32
    %g2 = arith.mulf %gi, %gi : f32
    %gv = arith.mulf %c2, %g2 : f32
    %v1 = arith.addf %bv, %gv : f32
    %p1t = math.powf %beta1, %t1 : f32
    %p2t = math.powf %beta2, %t1 : f32
    %bc1 = arith.subf %one, %p1t : f32
    %bc2 = arith.subf %one, %p2t : f32
    %sv = math.sqrt %v1 : f32
    %sb = math.sqrt %bc2 : f32
    %q = arith.divf %sv, %sb : f32
    %den = arith.addf %q, %eps : f32
    %step = arith.divf %lr, %bc1 : f32
    %ratio = arith.divf %m1, %den : f32
    %delta = arith.mulf %step, %ratio : f32
    %p1 = arith.subf %pp, %delta : f32
    %rp = arith.select %f, %pp, %p1 : f32
    %rm = arith.select %f, %mm, %m1 : f32
    %rv = arith.select %f, %vv, %v1 : f32
    linalg.yield %rp, %rm, %rv : f32, f32, f32
  } -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>)
  %u4:3 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1, #first1, #all1, #id1, #id1, #id1],
                             iterator_types = ["parallel"]}
      ins(%b2, %g#3, %mb2, %vb2, %t, %found : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<i1>)
      outs(%b2, %mb2, %vb2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%pp: f32, %gi: f32, %mm: f32, %vv: f32, %tt: f32, %f: i1, %o0: f32, %o1: f32, %o2: f32):
    %lr = arith.constant 1.0e-2 : f32
    %beta1 = arith.constant 0.9 : f32
    %beta2 = arith.constant 0.999 : f32
    %c1 = arith.constant 0.1 : f32
    %c2 = arith.constant 0.001 : f32
    %eps = arith.constant 1.0e-8 : f32
    %one = arith.constant 1.0 : f32
    %t1 = arith.addf %tt, %one : f32
    %bm = arith.mulf %beta1, %mm : f32
    %gm = arith.mulf %c1, %gi : f32
    %m1 = arith.addf %bm, %gm : f32
    %bv = arith.mulf %beta2, %vv : f32
    %g2 = arith.mulf %gi, %gi : f32
    %gv = arith.mulf %c2, %g2 : f32
    %v1 = arith.addf %bv, %gv : f32
    %p1t = math.powf %beta1, %t1 : f32
    %p2t = math.powf %beta2, %t1 : f32
    %bc1 = arith.subf %one, %p1t : f32
    %bc2 = arith.subf %one, %p2t : f32
    %sv = math.sqrt %v1 : f32
    %sb = math.sqrt %bc2 : f32
    %q = arith.divf %sv, %sb : f32
    %den = arith.addf %q, %eps : f32
    %step = arith.divf %lr, %bc1 : f32
    %ratio = arith.divf %m1, %den : f32
    %delta = arith.mulf %step, %ratio : f32
    %p1 = arith.subf %pp, %delta : f32
    %rp = arith.select %f, %pp, %p1 : f32
    %rm = arith.select %f, %mm, %m1 : f32
    %rv = arith.select %f, %vv, %v1 : f32
    linalg.yield %rp, %rm, %rv : f32, f32, f32
  } -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)

  // The applied-step count advances only on applied steps.
  %e1 = tensor.empty() : tensor<1xf32>
  %t1 = linalg.generic {indexing_maps = [#id1, #all1, #id1], iterator_types = ["parallel"]}
      ins(%t, %found : tensor<1xf32>, tensor<i1>) outs(%e1 : tensor<1xf32>) {
  ^bb0(%tt: f32, %f: i1, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.addf %tt, %one : f32
    %r = arith.select %f, %tt, %n : f32
    linalg.yield %r : f32
  } -> tensor<1xf32>

  return %loss, %u1#0, %u2#0, %u3#0, %u4#0, %u1#1, %u2#1, %u3#1, %u4#1,
         %u1#2, %u2#2, %u3#2, %u4#2, %t1, %scale1, %good1, %bad1, %hyst1, %found
      : tensor<f32>,
        tensor<16x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>,
        tensor<16x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>,
        tensor<16x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>,
        tensor<1xf32>, tensor<f32>, tensor<i32>, tensor<i32>, tensor<i32>,
        tensor<i1>
}

// 300 steps from the initial weights, Adam state at zero and the scaler at
// 2^16. Returns, for every step, the loss (before the step's update), the
// scale after the step's scaler update and found_inf (0/1). The driver is
// bookkeeping, not model computation: `amp.precision = "f32"` on the
// function keeps everything in it in f32 (at O2 its data movement would
// otherwise go to f16, and a scale of 2^16 does not fit in f16).
func.func @train(%x: tensor<256x16xf32>, %y: tensor<256x4xf32>,
                 %w1: tensor<16x8xf32>, %b1: tensor<8xf32>,
                 %w2: tensor<8x4xf32>, %b2: tensor<4xf32>,
                 %inject_step: tensor<i32>)
    -> (tensor<300xf32>, tensor<300xf32>, tensor<300xi32>)
    attributes {amp.precision = "f32"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %steps = arith.constant 300 : index
  %zero = arith.constant 0.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %z16xH = arith.constant dense<0.0> : tensor<16x8xf32>
  %zH = arith.constant dense<0.0> : tensor<8xf32>
  %zHx4 = arith.constant dense<0.0> : tensor<8x4xf32>
  %z4 = arith.constant dense<0.0> : tensor<4xf32>
  %t0 = arith.constant dense<0.0> : tensor<1xf32>
  %scale0 = arith.constant dense<65536.0> : tensor<f32>
  %count0 = arith.constant dense<0> : tensor<i32>
  %hyst0 = arith.constant dense<1> : tensor<i32>
  %losses0 = tensor.empty() : tensor<300xf32>
  %scales0 = tensor.empty() : tensor<300xf32>
  %found0 = tensor.empty() : tensor<300xi32>
  %r:21 = scf.for %i = %c0 to %steps step %c1
      iter_args(%pw1 = %w1, %pb1 = %b1, %pw2 = %w2, %pb2 = %b2,
                %mw1 = %z16xH, %mb1 = %zH, %mw2 = %zHx4, %mb2 = %z4,
                %vw1 = %z16xH, %vb1 = %zH, %vw2 = %zHx4, %vb2 = %z4,
                %t = %t0, %scale = %scale0, %good = %count0, %bad = %count0,
                %hyst = %hyst0, %losses = %losses0, %scales = %scales0,
                %founds = %found0, %unused = %zero)
      -> (tensor<16x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>,
          tensor<16x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>,
          tensor<16x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>,
          tensor<1xf32>, tensor<f32>, tensor<i32>, tensor<i32>, tensor<i32>,
          tensor<300xf32>, tensor<300xf32>, tensor<300xi32>, f32) {
    // inject = (i == inject_step) ? +Inf : 0, computed where the inputs live
    // (on the device with --lower-to-gpu: a one-element loop).
    %ii = arith.index_cast %i : index to i32
    %at = tensor.expand_shape %inject_step [] output_shape [1] : tensor<i32> into tensor<1xi32>
    %e1 = tensor.empty() : tensor<1xf32>
    %inject1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
        ins(%at : tensor<1xi32>) outs(%e1 : tensor<1xf32>) {
    ^bb0(%a: i32, %o: f32):
      %now = arith.cmpi eq, %ii, %a : i32
      %v = arith.select %now, %inf, %zero : f32
      linalg.yield %v : f32
    } -> tensor<1xf32>
    %inject = tensor.collapse_shape %inject1 [] : tensor<1xf32> into tensor<f32>
    %s:19 = func.call @train_step(%x, %y, %pw1, %pb1, %pw2, %pb2,
                                  %mw1, %mb1, %mw2, %mb2, %vw1, %vb1, %vw2, %vb2,
                                  %t, %scale, %good, %bad, %hyst, %inject)
        : (tensor<256x16xf32>, tensor<256x4xf32>,
           tensor<16x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>,
           tensor<16x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>,
           tensor<16x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>,
           tensor<1xf32>, tensor<f32>, tensor<i32>, tensor<i32>, tensor<i32>,
           tensor<f32>)
        -> (tensor<f32>,
            tensor<16x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>,
            tensor<16x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>,
            tensor<16x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>,
            tensor<1xf32>, tensor<f32>, tensor<i32>, tensor<i32>, tensor<i32>,
            tensor<i1>)
    // The histories are written with slices (copies), not host scalars.
    %losses1 = tensor.insert_slice %s#0 into %losses[%i] [1] [1] : tensor<f32> into tensor<300xf32>
    %scales1 = tensor.insert_slice %s#14 into %scales[%i] [1] [1] : tensor<f32> into tensor<300xf32>
    %f1 = tensor.expand_shape %s#18 [] output_shape [1] : tensor<i1> into tensor<1xi1>
    %ei = tensor.empty() : tensor<1xi32>
    %fv = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
        ins(%f1 : tensor<1xi1>) outs(%ei : tensor<1xi32>) {
    ^bb0(%a: i1, %o: i32):
      %v = arith.extui %a : i1 to i32
      linalg.yield %v : i32
    } -> tensor<1xi32>
    %founds1 = tensor.insert_slice %fv into %founds[%i] [1] [1] : tensor<1xi32> into tensor<300xi32>
    scf.yield %s#1, %s#2, %s#3, %s#4, %s#5, %s#6, %s#7, %s#8, %s#9, %s#10,
              %s#11, %s#12, %s#13, %s#14, %s#15, %s#16, %s#17,
              %losses1, %scales1, %founds1, %unused
        : tensor<16x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>,
          tensor<16x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>,
          tensor<16x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>,
          tensor<1xf32>, tensor<f32>, tensor<i32>, tensor<i32>, tensor<i32>,
          tensor<300xf32>, tensor<300xf32>, tensor<300xi32>, f32
  }
  return %r#17, %r#18, %r#19 : tensor<300xf32>, tensor<300xf32>, tensor<300xi32>
}
