/* LAN9118 driver (SMSC datasheet rev. 1.5 register map). Transmit writes each pbuf of a chain
 * as one buffer of the frame (command words A and B, then the words that hold it, with the
 * chip skipping the first bytes of an unaligned start), so nothing is copied before the FIFO;
 * receive reads the FIFO straight into a pool pbuf chain. */
#include "lan9118.h"

#include <string.h>

#include "board.h"
#include "lwip/etharp.h"
#include "lwip/pbuf.h"

#define ETH_BASE 0x40200000u
#define RX_DATA_FIFO (ETH_BASE + 0x00)
#define TX_DATA_FIFO (ETH_BASE + 0x20)
#define RX_STATUS_FIFO (ETH_BASE + 0x40)
#define IRQ_CFG (ETH_BASE + 0x54)
#define INT_STS (ETH_BASE + 0x58)
#define INT_EN (ETH_BASE + 0x5C)
#define BYTE_TEST (ETH_BASE + 0x64)
#define FIFO_INT (ETH_BASE + 0x68)
#define RX_CFG (ETH_BASE + 0x6C)
#define TX_CFG (ETH_BASE + 0x70)
#define HW_CFG (ETH_BASE + 0x74)
#define RX_FIFO_INF (ETH_BASE + 0x7C)
#define TX_FIFO_INF (ETH_BASE + 0x80)
#define MAC_CSR_CMD (ETH_BASE + 0xA4)
#define MAC_CSR_DATA (ETH_BASE + 0xA8)

#define MAC_CR 1
#define MAC_ADDRH 2
#define MAC_ADDRL 3
#define MAC_CR_FDPX 0x00100000u
#define MAC_CR_TXEN 0x00000008u
#define MAC_CR_RXEN 0x00000004u
#define CSR_BUSY 0x80000000u
#define CSR_READ 0x40000000u

#define IRQ_EN 0x100u
#define IRQ_POL 0x10u  /* active high */
#define IRQ_TYPE 0x1u  /* push-pull */
#define INT_RSFL 0x8u  /* receive status FIFO above its level (0: any frame) */
#define TX_ON 0x2u
#define TX_SAO 0x4u    /* transmit status may overrun: the driver never reads it */
#define TX_CMD_FIRST 0x2000u
#define TX_CMD_LAST 0x1000u
#define RX_STS_ERROR 0x8000u

#define FRAME_MAX 1514u /* without FCS; the chip adds it */

static struct lan9118_counters counters;

static void mac_write(unsigned reg, uint32_t val)
{
  while (REG32(MAC_CSR_CMD) & CSR_BUSY)
    ;
  REG32(MAC_CSR_DATA) = val;
  REG32(MAC_CSR_CMD) = CSR_BUSY | reg;
  while (REG32(MAC_CSR_CMD) & CSR_BUSY)
    ;
}

static uint32_t mac_read(unsigned reg)
{
  while (REG32(MAC_CSR_CMD) & CSR_BUSY)
    ;
  REG32(MAC_CSR_CMD) = CSR_BUSY | CSR_READ | reg;
  while (REG32(MAC_CSR_CMD) & CSR_BUSY)
    ;
  return REG32(MAC_CSR_DATA);
}

static err_t linkoutput(struct netif *nif, struct pbuf *p)
{
  uint32_t total = p->tot_len, done = 0;
  (void)nif;
  if (total > FRAME_MAX)
    return ERR_IF;
  /* Room for the frame, its rounding and two command words per buffer (QEMU's FIFO drains
   * as it is written, a chip's as the wire takes it). */
  while ((REG32(TX_FIFO_INF) & 0xffffu) < total + 64u)
    ;
  for (const struct pbuf *q = p; q && done < total; q = q->next) {
    if (!q->len)
      continue;
    uintptr_t addr = (uintptr_t)q->payload;
    uint32_t off = addr & 3u;
    uint32_t cmd_a = (off << 16) | q->len;
    if (done == 0)
      cmd_a |= TX_CMD_FIRST;
    done += q->len;
    if (done == total)
      cmd_a |= TX_CMD_LAST;
    REG32(TX_DATA_FIFO) = cmd_a;
    REG32(TX_DATA_FIFO) = total; /* command B: the frame's length (tag 0) */
    const volatile uint32_t *w = (const uint32_t *)(addr - off);
    for (uint32_t n = (off + q->len + 3u) / 4u; n; n--)
      REG32(TX_DATA_FIFO) = *w++;
  }
  counters.tx_frames++;
  counters.tx_bytes += total;
  return ERR_OK;
}

err_t lan9118_netif_init(struct netif *nif)
{
  if (REG32(BYTE_TEST) != 0x87654321u)
    return ERR_IF;
  REG32(HW_CFG) = 1; /* soft reset */
  while (REG32(HW_CFG) & 1)
    ;
  uint32_t lo = mac_read(MAC_ADDRL), hi = mac_read(MAC_ADDRH);
  for (int i = 0; i < 4; i++)
    nif->hwaddr[i] = (uint8_t)(lo >> (8 * i));
  nif->hwaddr[4] = (uint8_t)hi;
  nif->hwaddr[5] = (uint8_t)(hi >> 8);
  nif->hwaddr_len = ETH_HWADDR_LEN;
  /* Own address and broadcast only (reset leaves the MAC promiscuous). */
  mac_write(MAC_CR, MAC_CR_FDPX | MAC_CR_TXEN | MAC_CR_RXEN);
  REG32(TX_CFG) = TX_ON | TX_SAO;
  REG32(RX_CFG) = 0;
  REG32(FIFO_INT) = 0x48000000u; /* receive status level 0 */
  REG32(INT_STS) = 0xffffffffu;
  REG32(INT_EN) = INT_RSFL;
  REG32(IRQ_CFG) = IRQ_EN | IRQ_POL | IRQ_TYPE;
  board_irq_enable(BOARD_IRQ_ETH);

  nif->name[0] = 'e';
  nif->name[1] = 'n';
  nif->mtu = 1500;
  nif->flags = NETIF_FLAG_BROADCAST | NETIF_FLAG_ETHARP | NETIF_FLAG_ETHERNET;
  nif->output = etharp_output;
  nif->linkoutput = linkoutput;
  return ERR_OK;
}

/* The interrupt only wakes the main loop (board_idle); lan9118_poll() reads the frames. */
void board_eth_handler(void)
{
  REG32(INT_STS) = INT_RSFL;
}

int lan9118_rx_pending(void)
{
  return (REG32(RX_FIFO_INF) >> 16) & 0xffu;
}

static void skip_words(uint32_t n)
{
  while (n--)
    (void)REG32(RX_DATA_FIFO);
}

/* Reads `words` FIFO words holding p->tot_len bytes (and the FCS after them) into the chain;
 * pool pbufs need not hold a multiple of 4 bytes, so a word may straddle two of them. */
static void read_frame(struct pbuf *p, uint32_t words)
{
  uint32_t carry = 0, ncarry = 0;
  for (struct pbuf *q = p; q; q = q->next) {
    uint8_t *d = q->payload;
    uint32_t n = q->len;
    for (; n && ncarry; n--, ncarry--, carry >>= 8)
      *d++ = (uint8_t)carry;
    for (; n >= 4; n -= 4, d += 4, words--) {
      uint32_t w = REG32(RX_DATA_FIFO);
      memcpy(d, &w, 4);
    }
    if (n) {
      carry = REG32(RX_DATA_FIFO);
      words--;
      for (ncarry = 4; n; n--, ncarry--, carry >>= 8)
        *d++ = (uint8_t)carry;
    }
  }
  skip_words(words);
}

unsigned lan9118_poll(struct netif *nif, unsigned most)
{
  unsigned n = 0;
  for (; n < most && lan9118_rx_pending(); n++) {
    uint32_t status = REG32(RX_STATUS_FIFO);
    uint32_t len = (status >> 16) & 0x3fffu; /* with the 4-byte FCS */
    uint32_t words = (len + 3u) / 4u;
    if ((status & RX_STS_ERROR) || len < 14u + 4u || len > FRAME_MAX + 4u) {
      counters.rx_err++;
      skip_words(words);
      continue;
    }
    struct pbuf *p = pbuf_alloc(PBUF_RAW, (u16_t)(len - 4u), PBUF_POOL);
    if (!p) {
      counters.rx_nobuf++;
      skip_words(words);
      continue;
    }
    read_frame(p, words);
    counters.rx_frames++;
    counters.rx_bytes += len - 4u;
    if (nif->input(p, nif) != ERR_OK) {
      counters.rx_stack++;
      pbuf_free(p);
    }
  }
  return n;
}

const struct lan9118_counters *lan9118_counters(void)
{
  return &counters;
}

void lan9118_reset_counters(void)
{
  memset(&counters, 0, sizeof counters);
}
